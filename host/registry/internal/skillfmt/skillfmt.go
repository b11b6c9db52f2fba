// Package skillfmt checks the parts of an Agent Skill that the Skills
// extension (SEP-2640) and the Agent Skills specification constrain: the
// skill path, a file's path inside the skill, and SKILL.md's YAML
// frontmatter, which it renders as a JSON object.
package skillfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// nameRule is the Agent Skills naming rule: 1-64 characters, lowercase
// letters, digits and hyphens, no leading or trailing hyphen (no "--" is
// checked apart: RE2 has no lookahead).
var nameRule = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// segmentRule is what a skill path's other segments may hold: RFC 3986
// unreserved characters, which are valid in a reg-name and in a path.
var segmentRule = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)

// ValidName reports whether name satisfies the Agent Skills naming rules.
func ValidName(name string) bool {
	return nameRule.MatchString(name) && !strings.Contains(name, "--")
}

// CheckSkillPath checks a skill path ("review" or "acme/billing/refunds")
// and returns its last segment, the skill's name.
func CheckSkillPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("skill has no path")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || !segmentRule.MatchString(s) {
			return "", fmt.Errorf("skill path %q: segment %q is not allowed (letters, digits, . _ ~ -; no empty, . or .. segments)", p, s)
		}
	}
	name := segs[len(segs)-1]
	if !ValidName(name) {
		return "", fmt.Errorf("skill path %q: %q is not a valid skill name (1-64 of a-z 0-9 -, no leading, trailing or double hyphen)", p, name)
	}
	return name, nil
}

// MaxFilePath bounds a file's path inside a skill, in bytes.
const MaxFilePath = 512

// CheckFilePath checks a file's path relative to its skill's root: "/"
// separated, no empty, "." or ".." segment, not absolute, no backslash, no
// control or percent character, valid UTF-8; so it cannot name anything
// outside the skill, nor the same file twice.
func CheckFilePath(p string) error {
	switch {
	case p == "":
		return errors.New("a file has no path")
	case len(p) > MaxFilePath:
		return fmt.Errorf("file path %.40q…: longer than %d bytes", p, MaxFilePath)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("file path %q is absolute", p)
	case strings.ContainsAny(p, `\%`):
		return fmt.Errorf("file path %q: backslash and %% are not allowed", p)
	case !utf8.ValidString(p):
		return fmt.Errorf("file path %q is not valid UTF-8", p)
	}
	for _, r := range p {
		if unicode.IsControl(r) || r == 0xFFFD {
			return fmt.Errorf("file path %q holds a control character", p)
		}
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return fmt.Errorf("file path %q: empty, . and .. segments are not allowed", p)
		}
	}
	return nil
}

// Front is SKILL.md's frontmatter.
type Front struct {
	Name, Description string
	// JSON is the whole frontmatter as a JSON object, every field kept.
	JSON json.RawMessage
}

// MaxDescription bounds the description, as the Agent Skills
// specification does.
const MaxDescription = 1024

// Frontmatter parses the YAML frontmatter SKILL.md begins with (after an
// optional byte order mark): a "---" line, YAML, a "---" line. It needs a
// non-empty name and description.
func Frontmatter(md []byte) (*Front, error) {
	md = bytes.TrimPrefix(md, []byte("\uFEFF"))
	text := strings.ReplaceAll(string(md), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, errors.New("does not begin with a --- frontmatter line")
	}
	body := text[4:]
	var yml string
	if strings.HasPrefix(body, "---") {
		yml = ""
	} else if i := strings.Index(body, "\n---"); i >= 0 {
		yml = body[:i]
		rest := body[i+4:]
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		if strings.TrimRight(rest, " \t") != "" {
			return nil, errors.New("the frontmatter's closing line is not ---")
		}
	} else {
		return nil, errors.New("the frontmatter has no closing --- line")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &doc); err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("frontmatter is not a YAML mapping")
	}
	v, err := value(doc.Content[0], 0)
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	m := v.(map[string]any)
	f := &Front{}
	f.Name, _ = m["name"].(string)
	f.Description, _ = m["description"].(string)
	if f.Name == "" || f.Description == "" {
		return nil, errors.New("frontmatter needs a non-empty name and description (strings)")
	}
	if len([]rune(f.Description)) > MaxDescription {
		return nil, fmt.Errorf("frontmatter description is longer than %d characters", MaxDescription)
	}
	if f.JSON, err = json.Marshal(m); err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	return f, nil
}

// value renders a YAML node as a JSON value. Scalars keep their YAML 1.2
// core type; a timestamp stays the string it was written as (as YAML 1.2
// parsers read it). Aliases are refused: they can expand without bound.
func value(n *yaml.Node, depth int) (any, error) {
	if depth > 32 {
		return nil, errors.New("nested deeper than 32")
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q twice", k.Line, k.Value)
			}
			v, err := value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := value(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, err
			}
			return v, nil
		default:
			return n.Value, nil
		}
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: aliases are not allowed", n.Line)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML", n.Line)
}
