package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// Kind is what a declaration is.
type Kind string

// The kinds of declaration a plugin makes.
const (
	Tool     Kind = "tool"
	Prompt   Kind = "prompt"
	Resource Kind = "resource"
	Template Kind = "template"
)

// ValidKind reports whether k is one of the four kinds.
func ValidKind(k Kind) bool {
	return k == Tool || k == Prompt || k == Resource || k == Template
}

// Print is a declaration's fingerprint: Sum over the whole canonical form,
// and a short sum per top-level field, which names what changed when Sum
// does.
type Print struct {
	// Sum is "sha256:" and the hex SHA-256 of the canonical JSON.
	Sum string
	// Fields maps each top-level member ("description", "inputSchema", …)
	// to the first 16 hex digits of the SHA-256 of its canonical value.
	Fields map[string]string
}

// FieldSumLen is the length of a field's short sum, in hex digits.
const FieldSumLen = 16

// Of fingerprints def as it is served: def is encoded with encoding/json
// (the encoding go-sdk sends) and put in canonical form. def must encode to
// a JSON object.
func Of(def any) (Print, error) {
	raw, err := json.Marshal(def)
	if err != nil {
		return Print{}, fmt.Errorf("fingerprint: %w", err)
	}
	return OfJSON(raw)
}

// OfJSON fingerprints a declaration given as JSON text (an object).
func OfJSON(raw []byte) (Print, error) {
	canon, err := Canonical(raw)
	if err != nil {
		return Print{}, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(canon, &members); err != nil {
		return Print{}, fmt.Errorf("fingerprint: a declaration must be a JSON object: %w", err)
	}
	sum := sha256.Sum256(canon)
	p := Print{Sum: "sha256:" + hex.EncodeToString(sum[:]), Fields: make(map[string]string, len(members))}
	for k, v := range members {
		// Each member's value is already canonical (a part of canon).
		fs := sha256.Sum256(bytes.TrimSpace(v))
		p.Fields[k] = hex.EncodeToString(fs[:])[:FieldSumLen]
	}
	return p, nil
}

// Changed returns the fields whose sums differ between old and cur, added
// or removed ones included, sorted.
func Changed(old, cur Print) []string {
	var out []string
	for k, v := range cur.Fields {
		if old.Fields[k] != v {
			out = append(out, k)
		}
	}
	for k := range old.Fields {
		if _, ok := cur.Fields[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
