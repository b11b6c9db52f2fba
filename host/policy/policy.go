// Package policy decides who may call what: Cedar policies
// (github.com/cedar-policy/cedar-go) over the entities mcpwasm builds for a
// request (entities.go: the principal, the tool, prompt or resource and its
// plugin, the call's arguments and time as context).
//
// A Set is read from files, checked, and then immutable: a reload reads a
// new Set and swaps it in whole, so a Set that does not parse or check
// never replaces the one in force. A nil *Set allows everything at no
// cost (no policy configured).
package policy

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	cedar "github.com/cedar-policy/cedar-go"
	"github.com/cedar-policy/cedar-go/types"
)

// Set is a checked, immutable set of policies, safe for concurrent use.
type Set struct {
	ps      *cedar.PolicySet
	list    policyList                // the same policies, iterated in order (faster than the set's map)
	reasons map[types.PolicyID]string // @reason annotations
	args    map[types.PolicyID]bool   // the policies that read the arguments (Listable)
	targets *targetCache
	files   []string
	n       int
}

// Len is the number of policies.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Files are the files the set was read from.
func (s *Set) Files() []string {
	if s == nil {
		return nil
	}
	return s.files
}

// Error is a policy file that cannot be used: its file and line (0 when
// the error is the file's as a whole) and why.
type Error struct {
	File   string
	Line   int
	Column int
	Reason string
}

// Error is "file:line:column: reason", as much of it as is known.
func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// MaxFileSize bounds one policy or schema file.
const MaxFileSize = 4 << 20

// Load reads policy files (Cedar text) and, when schemaFile is not "",
// checks every policy against that schema (Cedar text, or JSON when it
// ends in .json). Each error names its file and line; all are returned,
// joined.
func Load(files []string, schemaFile string) (*Set, error) {
	if len(files) == 0 {
		return nil, errors.New("policy: no policy file")
	}
	docs := make([]Document, 0, len(files))
	for _, f := range files {
		b, err := readFile(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, Document{Name: f, Text: b})
	}
	s, err := Parse(docs...)
	if err != nil {
		return nil, err
	}
	if schemaFile != "" {
		b, err := readFile(schemaFile)
		if err != nil {
			return nil, err
		}
		sc, err := ParseSchema(schemaFile, b)
		if err != nil {
			return nil, err
		}
		if err := sc.Check(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &Error{File: name, Reason: unwrapPath(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{File: name, Reason: unwrapPath(err)}
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: name, Reason: "not a regular file"}
	}
	if st.Size() > MaxFileSize {
		return nil, &Error{File: name, Reason: fmt.Sprintf("larger than %d bytes", MaxFileSize)}
	}
	b := make([]byte, st.Size())
	n, err := f.Read(b)
	if err != nil && st.Size() > 0 {
		return nil, &Error{File: name, Reason: unwrapPath(err)}
	}
	return b[:n], nil
}

func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Document is one policy file's name and text.
type Document struct {
	Name string
	Text []byte
}

var parsePos = regexp.MustCompile(`^(?:parser error: )?parse error at [^ ]*?:(\d+):(\d+) (.*)$`)

// Parse reads policy documents. A policy's id is its @id annotation, else
// "<file name>:<line>"; two policies with one id are an error naming both.
func Parse(docs ...Document) (*Set, error) {
	s := &Set{ps: cedar.NewPolicySet(), reasons: map[types.PolicyID]string{}, args: map[types.PolicyID]bool{}, targets: &targetCache{}}
	where := map[types.PolicyID]string{}
	var errs []error
	for _, d := range docs {
		s.files = append(s.files, d.Name)
		list, err := cedar.NewPolicyListFromBytes(d.Name, d.Text)
		if err != nil {
			e := &Error{File: d.Name, Reason: err.Error()}
			if m := parsePos.FindStringSubmatch(err.Error()); m != nil {
				e.Line, _ = strconv.Atoi(m[1])
				e.Column, _ = strconv.Atoi(m[2])
				e.Reason = "syntax error at " + m[3]
			}
			errs = append(errs, e)
			continue
		}
		for _, p := range list {
			pos := p.Position()
			ann := p.Annotations()
			id := types.PolicyID(fmt.Sprintf("%s:%d", filepath.Base(d.Name), pos.Line))
			if v, ok := ann["id"]; ok {
				if v == "" {
					errs = append(errs, &Error{File: d.Name, Line: pos.Line, Reason: "@id is empty"})
					continue
				}
				id = types.PolicyID(v)
			}
			here := fmt.Sprintf("%s:%d", d.Name, pos.Line)
			if prev, dup := where[id]; dup {
				errs = append(errs, &Error{File: d.Name, Line: pos.Line, Reason: fmt.Sprintf("policy id %q is already used at %s", id, prev)})
				continue
			}
			where[id] = here
			s.ps.Add(id, p)
			s.list = append(s.list, listed{id, p})
			if strings.Contains(string(p.MarshalCedar()), "arguments") {
				s.args[id] = true
			}
			if r, ok := ann["reason"]; ok {
				s.reasons[id] = string(r)
			}
			s.n++
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// IDs lists the policies' ids, sorted.
func (s *Set) IDs() []string {
	if s == nil {
		return nil
	}
	var out []string
	for id := range s.ps.All() {
		out = append(out, string(id))
	}
	sort.Strings(out)
	return out
}

// Where is the file and line of a policy, for messages ("" if unknown).
func (s *Set) Where(id string) string {
	if s == nil {
		return ""
	}
	p := s.ps.Get(types.PolicyID(id))
	if p == nil {
		return ""
	}
	pos := p.Position()
	return fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
}

// trimReason keeps a reason to one short line for messages.
func trimReason(r string) string {
	r = strings.Join(strings.Fields(r), " ")
	if len(r) > 300 {
		r = r[:300] + "…"
	}
	return r
}

type listed struct {
	id types.PolicyID
	p  *cedar.Policy
}

// policyList is a cedar.PolicyIterator over a slice.
type policyList []listed

// All yields the policies in the order they were read.
func (l policyList) All() iter.Seq2[types.PolicyID, *cedar.Policy] {
	return func(yield func(types.PolicyID, *cedar.Policy) bool) {
		for _, e := range l {
			if !yield(e.id, e.p) {
				return
			}
		}
	}
}
