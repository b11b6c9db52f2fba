package resources

import (
	"errors"
	"strings"
)

// A uriTemplate is a parsed RFC 6570 URI template, used the other way round:
// to match a URI and recover the variables that would expand to it.
//
// Supported: literals and the expressions of levels 1 to 3: {var},
// {+var}, {#var}, {.var}, {/var}, {;var}, {?var}, {&var}, each with one or
// more comma-separated variables, and the prefix modifier {var:3} (accepted,
// not enforced). Not supported, and refused when the plugin loads: the
// explode modifier {var*}, which expands lists and maps, and a variable used
// twice.
type uriTemplate struct {
	parts []part
	names []string // every variable, in order of appearance
}

// A part is literal text (expr nil) or one expression.
type part struct {
	lit  string
	expr *expr
}

// An expr is one {...} expression: its operator (0 for none) and variables.
type expr struct {
	op   byte
	vars []string
}

func parseTemplate(s string) (*uriTemplate, error) {
	t := &uriTemplate{}
	for len(s) > 0 {
		open := strings.IndexAny(s, "{}")
		if open < 0 {
			t.parts = append(t.parts, part{lit: s})
			break
		}
		if s[open] == '}' {
			return nil, errors.New("has a '}' without a '{'")
		}
		if open > 0 {
			t.parts = append(t.parts, part{lit: s[:open]})
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return nil, errors.New("has a '{' without a '}'")
		}
		e, err := parseExpr(s[open+1 : open+end])
		if err != nil {
			return nil, err
		}
		for _, v := range e.vars {
			for _, seen := range t.names {
				if seen == v {
					return nil, errors.New("uses the variable " + v + " twice")
				}
			}
			t.names = append(t.names, v)
		}
		t.parts = append(t.parts, part{expr: e})
		s = s[open+end+1:]
	}
	return t, nil
}

func parseExpr(body string) (*expr, error) {
	e := &expr{}
	if body != "" && strings.IndexByte("+#./;?&", body[0]) >= 0 {
		e.op, body = body[0], body[1:]
	} else if body != "" && strings.IndexByte("=,!@|", body[0]) >= 0 {
		return nil, errors.New("uses the operator " + body[:1] + ", which RFC 6570 reserves")
	}
	if body == "" {
		return nil, errors.New("has an empty expression {}")
	}
	for _, spec := range strings.Split(body, ",") {
		name := spec
		if i := strings.IndexByte(spec, ':'); i >= 0 {
			name = spec[:i]
			if n := spec[i+1:]; n == "" || len(n) > 4 || strings.Trim(n, "0123456789") != "" || n[0] == '0' {
				return nil, errors.New("has an invalid prefix modifier in {" + body + "}")
			}
		} else if strings.HasSuffix(spec, "*") {
			return nil, errors.New("uses the explode modifier in {" + body + "}, which this SDK does not support")
		}
		if !validVarName(name) {
			return nil, errors.New("has an invalid variable name " + strings.TrimSpace(name) + " in {" + body + "}")
		}
		e.vars = append(e.vars, name)
	}
	return e, nil
}

// validVarName: varchar = ALPHA / DIGIT / "_" / pct-encoded, with '.'
// between varchars.
func validVarName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || c == '_' || c == '.':
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// match reports whether uri is an expansion of t, and the variables'
// values. A variable the URI leaves undefined is absent from the map. When
// several splits fit, each variable takes the shortest value that lets the
// rest match, so {+path}{?q} splits "a/b?q=1" into path "a/b" and q "1".
func (t *uriTemplate) match(uri string) (map[string]string, bool) {
	m := matcher{t: t, uri: uri, vars: map[string]string{}, failed: map[int]bool{}}
	if !m.at(0, 0) {
		return nil, false
	}
	return m.vars, true
}

type matcher struct {
	t      *uriTemplate
	uri    string
	vars   map[string]string
	failed map[int]bool // part*(len(uri)+1)+offset of the pairs known not to match
}

func (m *matcher) at(k, i int) bool {
	if k == len(m.t.parts) {
		return i == len(m.uri)
	}
	key := k*(len(m.uri)+1) + i
	if m.failed[key] {
		return false
	}
	p := m.t.parts[k]
	if p.expr == nil {
		if strings.HasPrefix(m.uri[i:], p.lit) && m.at(k+1, i+len(p.lit)) {
			return true
		}
		m.failed[key] = true
		return false
	}
	end := i
	for end < len(m.uri) && p.expr.allows(m.uri[end]) {
		end++
	}
	from := i
	if k == len(m.t.parts)-1 { // the last part must take the rest
		from = len(m.uri)
	}
	for j := from; j <= end; j++ {
		vals, ok := p.expr.values(m.uri[i:j])
		if ok && m.at(k+1, j) {
			for n, v := range vals {
				m.vars[n] = v
			}
			return true
		}
	}
	m.failed[key] = true
	return false
}

func (e *expr) reserved() bool { return e.op == '+' || e.op == '#' }
func (e *expr) named() bool    { return e.op == ';' || e.op == '?' || e.op == '&' }

// prefix is the character an expansion starts with (0 for none).
func (e *expr) prefix() byte {
	if e.op == '+' {
		return 0
	}
	return e.op
}

// sep is the character between an expansion's values.
func (e *expr) sep() byte {
	switch e.op {
	case '.', '/', ';':
		return e.op
	case '?', '&':
		return '&'
	}
	return ','
}

// allows reports whether c can occur in an expansion of e.
func (e *expr) allows(c byte) bool {
	if isUnreserved(c) || c == '%' {
		return true
	}
	if e.reserved() {
		return isReserved(c)
	}
	return c != 0 && (c == e.prefix() || c == e.sep() || e.named() && c == '=')
}

// values decodes s as an expansion of e: the variables it defines, or false
// if e cannot expand to s. The empty string leaves every variable undefined.
func (e *expr) values(s string) (map[string]string, bool) {
	if s == "" {
		return nil, true
	}
	if p := e.prefix(); p != 0 {
		if s[0] != p {
			return nil, false
		}
		s = s[1:]
	}
	var items []string
	if e.reserved() && len(e.vars) == 1 {
		items = []string{s} // a reserved value may contain the separator
	} else {
		items = strings.Split(s, string(e.sep()))
	}
	vals := map[string]string{}
	if !e.named() {
		if len(items) > len(e.vars) {
			return nil, false
		}
		for i, it := range items {
			v, ok := unescape(it, e.reserved())
			if !ok {
				return nil, false
			}
			vals[e.vars[i]] = v
		}
		return vals, true
	}
	next := 0 // named values come in the variables' order, undefined ones left out
	for _, it := range items {
		name, raw, hasValue := strings.Cut(it, "=")
		for next < len(e.vars) && e.vars[next] != name {
			next++
		}
		if next == len(e.vars) || !hasValue && e.op != ';' {
			return nil, false
		}
		v, ok := unescape(raw, false)
		if !ok {
			return nil, false
		}
		vals[name] = v
		next++
	}
	return vals, true
}

// unescape percent-decodes s, which may hold only unreserved characters and
// percent-encodings (and reserved characters if reserved is set).
func unescape(s string, reserved bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		case isUnreserved(c) || reserved && isReserved(c):
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isUnreserved(c byte) bool { return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' }

func isReserved(c byte) bool { return c != 0 && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
