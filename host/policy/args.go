package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cedar-policy/cedar-go/types"
)

// maxDepth is how deep arguments are turned into Cedar records and sets;
// a value nested deeper arrives as its JSON text (a String).
const maxDepth = 32

// Arguments turns a call's JSON arguments into the Cedar record
// context.arguments. Absent or null arguments are an empty record; anything
// but an object is an error. Each JSON value becomes:
//
//   - a string: a String; true/false: a Bool;
//   - a number written as an integer that fits in 64 bits: a Long;
//   - any other number (a fraction, an exponent, an integer beyond int64):
//     a String holding the number exactly as the client wrote it. Cedar's
//     Long is int64 and its decimal has four digits after the point, so
//     neither holds every JSON number; a String keeps the value without
//     rounding it, and a policy that compares it as a number errors, which
//     denies the request when the policy is a forbid (Set.Authorize: a
//     forbid that errors denies), so such a number never slips past one;
//   - an array: a Set (Cedar sets have no order and no duplicates);
//   - an object: a Record; a null member is left out (Cedar has no null);
//   - a value nested more than 32 levels deep: a String of its JSON text.
func Arguments(raw json.RawMessage) (types.Record, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return types.Record{}, nil
	}
	if raw[0] != '{' {
		return types.Record{}, errors.New("arguments are not a JSON object")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return types.Record{}, fmt.Errorf("arguments: %v", err)
	}
	return record(v, 1), nil
}

// StringArguments is Arguments for prompts/get, whose arguments are strings.
func StringArguments(m map[string]string) types.Record {
	rm := make(types.RecordMap, len(m))
	for k, v := range m {
		rm[types.String(k)] = types.String(v)
	}
	return types.NewRecord(rm)
}

func record(m map[string]any, depth int) types.Record {
	rm := make(types.RecordMap, len(m))
	for k, v := range m {
		if v == nil {
			continue
		}
		rm[types.String(k)] = value(v, depth)
	}
	return types.NewRecord(rm)
}

func value(v any, depth int) types.Value {
	if depth > maxDepth {
		if _, scalar := v.(json.Number); !scalar {
			b, _ := json.Marshal(v)
			return types.String(b)
		}
	}
	switch x := v.(type) {
	case string:
		return types.String(x)
	case bool:
		return types.Boolean(x)
	case json.Number:
		return number(string(x))
	case []any:
		vs := make([]types.Value, 0, len(x))
		for _, e := range x {
			if e != nil {
				vs = append(vs, value(e, depth+1))
			}
		}
		return types.NewSet(vs...)
	case map[string]any:
		return record(x, depth+1)
	}
	return types.String(fmt.Sprint(v))
}

// number is a Long when the literal is an integer within int64, else the
// literal itself as a String (see Arguments).
func number(lit string) types.Value {
	if !strings.ContainsAny(lit, ".eE") {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return types.Long(n)
		}
	}
	return types.String(lit)
}

// argType is the Cedar type of one argument in the generated schema, from
// the JSON Schema of the tools that take it: "" when it has none (a number
// that may be a Long or a String, a union, conflicting declarations).
func argType(s map[string]any, depth int) string {
	if depth > maxDepth-1 {
		return ""
	}
	t, _ := s["type"].(string)
	switch t {
	case "string":
		return "String"
	case "boolean":
		return "Bool"
	case "integer":
		return "Long"
	case "array":
		items, _ := s["items"].(map[string]any)
		if it := argType(items, depth+1); it != "" {
			return "Set<" + it + ">"
		}
	case "object":
		props, _ := s["properties"].(map[string]any)
		return recordType(props, depth+1)
	}
	return ""
}

// recordType is a Cedar record type with every typed property optional.
func recordType(props map[string]any, depth int) string {
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range names {
		ps, _ := props[k].(map[string]any)
		t := argType(ps, depth)
		if t == "" || !plainName(k) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(strconv.Quote(k) + "?: " + t)
	}
	b.WriteString("}")
	return b.String()
}

// plainName reports whether an argument name can be written in a Cedar
// schema as it is (no escape needed); other names are left out of it.
func plainName(k string) bool {
	return k != "" && len(k) <= 256 && strconv.QuoteToASCII(k) == `"`+k+`"`
}
