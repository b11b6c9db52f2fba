package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is every problem found in a config file, each with its line: a
// config is reported whole, not one problem per try.
type Error struct {
	// File is the config file's path ("" from Parse).
	File string
	// Problems are in the order of the checks, each with its line.
	Problems []Problem
}

// Problem is one problem and the line it is on (1-based).
type Problem struct {
	Line int
	Err  error
}

// Error writes one line per problem: "FILE: line N: what".
func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		if e.File != "" {
			b.WriteString(e.File + ": ")
		}
		fmt.Fprintf(&b, "line %d: %v", p.Line, p.Err)
	}
	return b.String()
}

// Unwrap returns the problems' errors.
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.Err
	}
	return out
}

var linePrefix = regexp.MustCompile(`^line (\d+): `)

// collector gathers a config's problems.
type collector struct{ list []Problem }

// add records err: each part of a joined error on its own; a message that
// starts with "line N: " keeps N, any other gets line (the table's or the
// key's, found by a locator). Nil adds nothing.
func (c *collector) add(err error, line int) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, isErr := err.(*Error); !isErr {
			for _, e := range j.Unwrap() {
				c.add(e, line)
			}
			return
		}
	}
	msg := err.Error()
	if m := linePrefix.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		c.list = append(c.list, Problem{Line: n, Err: errors.New(msg[len(m[0]):])})
		return
	}
	c.list = append(c.list, Problem{Line: max(line, 1), Err: err})
}

// addNew is add, unless a problem is already recorded on that line (a
// specific check named it first, with its own message).
func (c *collector) addNew(err error, line int) {
	for _, p := range c.list {
		if p.Line == line && line > 0 {
			return
		}
	}
	c.add(err, line)
}

// err is the problems as one *Error, or nil.
func (c *collector) err() error {
	if len(c.list) == 0 {
		return nil
	}
	return &Error{Problems: c.list}
}

// locator knows the line of every table and key written in a config, by
// its path: array-of-tables entries counted ("plugin.1.path" is the path
// of the second [[plugin]]; "plugin.1.net.0" its first [[plugin.net]]).
// It reads lines the way TOML writes them, not every TOML form: a key
// inside an inline table or a multi-line value falls back to the line of
// the key or table holding it.
type locator struct {
	lines  map[string]int
	arrays map[string]int // array-of-tables path -> entries so far
}

var (
	tableHeader = regexp.MustCompile(`^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	keyStart    = regexp.MustCompile(`^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=`)
)

// locate scans data once.
func locate(data []byte) *locator {
	l := &locator{lines: map[string]int{}, arrays: map[string]int{}}
	cur := ""
	inMulti := ""
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if inMulti != "" { // inside a multi-line string
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		if m := tableHeader.FindStringSubmatch(line); m != nil && !strings.Contains(line, "=") {
			parts := splitKey(m[2])
			if m[1] == "[[" {
				p := l.resolve(parts[:len(parts)-1], parts[len(parts)-1])
				cur = p + "." + strconv.Itoa(l.arrays[p])
				l.arrays[p]++
			} else {
				cur = l.resolve(parts, "")
			}
			l.set(cur, n)
			continue
		}
		if m := keyStart.FindStringSubmatch(line); m != nil {
			p := cur
			for _, k := range splitKey(m[1]) {
				p = join(p, k)
				l.set(p, n)
			}
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(line, q)%2 == 1 {
					inMulti = q
				}
			}
		}
	}
	return l
}

// resolve turns a table path into a locator path: each part that is an
// array of tables so far stands for its last entry. last, if set, is
// appended as is (the array a [[header]] adds to).
func (l *locator) resolve(parts []string, last string) string {
	p := ""
	for _, k := range parts {
		p = join(p, k)
		if n := l.arrays[p]; n > 0 {
			p += "." + strconv.Itoa(n-1)
		}
	}
	if last != "" {
		p = join(p, last)
	}
	return p
}

func (l *locator) set(path string, line int) {
	if _, ok := l.lines[path]; !ok {
		l.lines[path] = line
	}
}

// line is the line of path's parts (strings and array indexes), or of the
// nearest table or key holding it; 0 if none is written.
func (l *locator) line(parts ...any) int {
	var ss []string
	for _, p := range parts {
		ss = append(ss, fmt.Sprint(p))
	}
	for n := len(ss); n > 0; n-- {
		if line, ok := l.lines[strings.Join(ss[:n], ".")]; ok {
			return line
		}
	}
	return 0
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// splitKey splits a dotted TOML key, unquoting its parts.
func splitKey(k string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// syntaxLine is the line of byte offset start in data: the TOML
// decoder's Position.Line counts the newline a token ended on, and puts an
// error at the end of line 3 (an unclosed [[plugin]) on line 4.
func syntaxLine(data []byte, start, reported int) int {
	if start <= 0 || start > len(data) {
		return reported
	}
	return strings.Count(string(data[:start]), "\n") + 1
}
