package registry

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go reports a failed validation the way its code sees it:
// "validating root: validating /properties/n: type: <invalid reflect.Value>
// has type "null", want "number"". The model reading the result needs the
// argument and the expectation: `argument "n": got null, want number`.

// argumentError describes why args do not satisfy the tool's schema, naming
// the argument. err is jsonschema-go's error for the same arguments.
func argumentError(s *jsonschema.Schema, args any, err error) string {
	if msg := typeMismatch(s, args, ""); msg != "" {
		return msg
	}
	return rewriteSchemaError(err)
}

// typeMismatch finds the first value whose JSON type the schema's "type"
// rules out, following properties and items.
func typeMismatch(s *jsonschema.Schema, v any, path string) string {
	if s == nil {
		return ""
	}
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	if len(want) > 0 && !typeIn(v, want) {
		if path == "" {
			return fmt.Sprintf("arguments: got %s, want %s", jsonType(v), strings.Join(want, " or "))
		}
		return fmt.Sprintf("argument %q: got %s, want %s", path, jsonType(v), strings.Join(want, " or "))
	}
	switch v := v.(type) {
	case map[string]any:
		for name, ps := range s.Properties {
			if x, ok := v[name]; ok {
				if msg := typeMismatch(ps, x, join(path, name)); msg != "" {
					return msg
				}
			}
		}
	case []any:
		for i, x := range v {
			is := s.Items
			if i < len(s.PrefixItems) {
				is = s.PrefixItems[i]
			}
			if msg := typeMismatch(is, x, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonType names the JSON type of a decoded value; whole numbers are
// "integer".
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeIn(v any, want []string) bool {
	got := jsonType(v)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	return false
}

var (
	// numericBound is jsonschema-go's message for a number out of bounds:
	// the value as a fraction ("9/1"), the bound in %f ("6.000000").
	numericBound = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): (-?\d+(?:/\d+)?) is (?:less than or equal to|greater than or equal to|less than|greater than|not a multiple of) (-?\d+(?:\.\d+)?)$`)
	schemaStep   = regexp.MustCompile(`^validating ([^:]*): `)
	propertyStep = regexp.MustCompile(`/properties/([^/]+)`)
)

// rewriteSchemaError turns jsonschema-go's chain of "validating <schema
// location>: " into the argument's name, and its Go value notation into
// JSON's.
func rewriteSchemaError(err error) string {
	msg := err.Error()
	loc := ""
	for {
		m := schemaStep.FindStringSubmatch(msg)
		if m == nil {
			break
		}
		loc, msg = m[1], msg[len(m[0]):]
	}
	msg = strings.ReplaceAll(msg, "<invalid reflect.Value>", "null")
	msg = rewriteBound(msg)
	msg = strings.Replace(msg, "required: missing properties:", "missing required arguments", 1)
	msg = strings.Replace(msg, "unexpected additional properties", "unexpected arguments", 1)
	if loc == "" || loc == "root" {
		return msg
	}
	var names []string
	rest := loc
	for {
		m := propertyStep.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			break
		}
		names = append(names, rest[m[2]:m[3]])
		rest = rest[m[1]:]
	}
	name := strings.Join(names, ".")
	if rest == "/items" {
		name += "[]"
	} else if rest != "" || name == "" {
		return fmt.Sprintf("at %s: %s", loc, msg)
	}
	return fmt.Sprintf("argument %q: %s", name, msg)
}

// rewriteBound writes a numeric bound's message as a person would: "9 is
// greater than the maximum 6", not "maximum: 9/1 is greater than 6.000000".
// Other messages are returned as they are.
func rewriteBound(msg string) string {
	m := numericBound.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	v, b := decimal(m[2]), decimal(m[3])
	switch m[1] {
	case "minimum":
		return fmt.Sprintf("%s is less than the minimum %s", v, b)
	case "maximum":
		return fmt.Sprintf("%s is greater than the maximum %s", v, b)
	case "exclusiveMinimum":
		return fmt.Sprintf("%s must be greater than %s", v, b)
	case "exclusiveMaximum":
		return fmt.Sprintf("%s must be less than %s", v, b)
	}
	return fmt.Sprintf("%s is not a multiple of %s", v, b)
}

// decimal writes a fraction ("9/1", "3/2") or a decimal ("6.000000") the
// shortest way ("9", "1.5", "6").
func decimal(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
