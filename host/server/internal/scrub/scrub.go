// Package scrub cleans what a plugin's answers carry to the client, for
// every guest request and every task run: known secrets replaced,
// credentials found by format redacted, blocked or logged (the plugin's
// `secrets`), and with results_hidden_text = "strip" hidden characters
// removed from text. Text, structuredContent, _meta, embedded resources,
// resource reads, prompt messages, completions and error messages are all
// covered. What it does is logged and audited: kinds and counts, never
// values. Only package server uses it.
package scrub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/internal/clip"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Policy is what is done to one plugin's answers.
type Policy struct {
	// Secrets replaces the known secrets and handles credentials by Mode.
	Secrets secrets.Policy
	// Strip removes hidden characters from text (results_hidden_text =
	// "strip").
	Strip bool
}

// scrubbed is what scrubbing one answer found.
type scrubbed struct {
	rep   secrets.Report
	strip int
}

func (s *scrubbed) text(p Policy, v string) string {
	v, rep := p.Secrets.Scan(v)
	s.rep.Add(rep)
	if p.Strip {
		var n int
		v, n = hiddentext.Strip(v)
		s.strip += n
	}
	return v
}

// raw scrubs JSON text (structuredContent, _meta): known secrets in their
// JSON forms and credentials are replaced inside strings, which keeps the
// text JSON; should a replacement break it (a secret written as a JSON
// number), the value becomes the string "[REDACTED]".
func (s *scrubbed) raw(p Policy, b []byte) []byte {
	v, rep := p.Secrets.Scan(string(b))
	s.rep.Add(rep)
	if rep.Empty() {
		return b
	}
	if !json.Valid([]byte(v)) {
		return []byte(`"` + secrets.Marker + `"`)
	}
	return []byte(v)
}

func (s *scrubbed) value(p Policy, v any) any {
	if v == nil {
		return nil
	}
	if rm, ok := v.(json.RawMessage); ok && len(rm) > 0 {
		// As the guest sent it (registry.parseResult): scanned as is.
		out := s.raw(p, rm)
		if &out[0] == &rm[0] {
			return v
		}
		return json.RawMessage(out)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out := s.raw(p, b)
	if &out[0] == &b[0] {
		return v
	}
	return json.RawMessage(out)
}

func (s *scrubbed) meta(p Policy, m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return m
	}
	b, err := json.Marshal(m)
	if err != nil {
		return m
	}
	out := s.raw(p, b)
	if &out[0] == &b[0] {
		return m
	}
	var nm mcp.Meta
	if json.Unmarshal(out, &nm) != nil {
		return mcp.Meta{}
	}
	return nm
}

func (s *scrubbed) content(p Policy, cs []mcp.Content) {
	for _, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			x.Text = s.text(p, x.Text)
			x.Meta = s.meta(p, x.Meta)
		case *mcp.EmbeddedResource:
			if x.Resource != nil {
				s.resource(p, x.Resource)
			}
		case *mcp.ResourceLink:
			x.URI, x.Name, x.Title, x.Description = s.text(p, x.URI), s.text(p, x.Name), s.text(p, x.Title), s.text(p, x.Description)
		}
	}
}

func (s *scrubbed) resource(p Policy, r *mcp.ResourceContents) {
	r.Text = s.text(p, r.Text)
	if len(r.Blob) > 0 {
		// Binary: known secrets only (as written, base64, hex), never
		// stripped or searched for formats.
		if b, n := p.Secrets.Known.Redact(string(r.Blob)); n > 0 {
			r.Blob = []byte(b)
			s.rep.Known += n
		}
	}
	r.Meta = s.meta(p, r.Meta)
}

// Scrubber applies each plugin's policy to its answers.
type Scrubber struct {
	// Policy is the policy for the answers of the plugin named; nil
	// scrubs nothing.
	Policy func(plugin string) Policy
	// Audit records what was done (nil records nothing).
	Audit *audit.Log
	// Logger receives a line for each answer changed.
	Logger *slog.Logger
}

// Answer applies plugin's policy to one guest answer, its error included,
// and records what it did (the audit log, which the metrics count). Under
// secrets = "block", an answer carrying a credential is replaced by an
// error naming the kinds found, never the values. A tool result stays a
// tool result.
func (s *Scrubber) Answer(ctx context.Context, plugin, name string, res mcp.Result, err error) (mcp.Result, error) {
	if s.Policy == nil || plugin == "" {
		return res, err
	}
	p := s.Policy(plugin)
	if p.Secrets.Known.Empty() && p.Secrets.Mode == secrets.Off && !p.Strip {
		return res, err
	}
	var sc scrubbed
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r == nil {
			break
		}
		sc.content(p, r.Content)
		r.StructuredContent = sc.value(p, r.StructuredContent)
		r.Meta = sc.meta(p, r.Meta)
	case *mcp.ReadResourceResult:
		if r == nil {
			break
		}
		for _, c := range r.Contents {
			if c != nil {
				sc.resource(p, c)
			}
		}
	case *mcp.GetPromptResult:
		if r == nil {
			break
		}
		r.Description = sc.text(p, r.Description)
		for _, m := range r.Messages {
			if m != nil && m.Content != nil {
				sc.content(p, []mcp.Content{m.Content})
			}
		}
	case *mcp.CompleteResult:
		if r == nil {
			break
		}
		for i, v := range r.Completion.Values {
			r.Completion.Values[i] = sc.text(p, v)
		}
	}
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			c := *je
			c.Message = sc.text(p, c.Message)
			if len(c.Data) > 0 {
				c.Data = sc.raw(p, c.Data)
			}
			err = &c
		} else if msg := sc.text(p, err.Error()); msg != err.Error() {
			err = errors.New(msg)
		}
	}
	s.report(ctx, plugin, name, p, &sc)
	if p.Secrets.Mode == secrets.Block && len(sc.rep.Found) > 0 {
		msg := fmt.Sprintf("the result was withheld: it carries a credential (%s); plugin %q has secrets = \"block\"", foundKinds(sc.rep.Found), plugin)
		if _, ok := res.(*mcp.CallToolResult); ok {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}},
				Meta: mcp.Meta{"mcpwasm/error": "blocked"}}, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	return res, err
}

// report logs and audits what scrubbing found: kinds and counts, never
// values.
func (s *Scrubber) report(ctx context.Context, plugin, name string, p Policy, sc *scrubbed) {
	rec := func(outcome string, n int, reason string) {
		s.Audit.Record(audit.Event{Kind: audit.KindTrust, Outcome: outcome, Plugin: plugin, Tool: clip.String(name, clip.Audit),
			Reason: reason, Attrs: map[string]any{"count": n}})
	}
	if n := sc.rep.Known + len(sc.rep.Found); n > 0 {
		why := "known secrets: " + fmt.Sprint(sc.rep.Known)
		if len(sc.rep.Found) > 0 {
			why += "; credentials: " + foundKinds(sc.rep.Found)
		}
		switch {
		case p.Secrets.Mode == secrets.Block && len(sc.rep.Found) > 0:
			s.Logger.WarnContext(ctx, "result withheld: it carries a credential", "plugin", plugin, "name", name, "found", why)
			rec("block", len(sc.rep.Found), why)
			if sc.rep.Known > 0 {
				rec("redaction", sc.rep.Known, why)
			}
		case p.Secrets.Mode == secrets.Log && len(sc.rep.Found) > 0:
			s.Logger.WarnContext(ctx, "credential in a result, passed on (secrets = \"log\")", "plugin", plugin, "name", name, "found", why)
			if sc.rep.Known > 0 {
				rec("redaction", sc.rep.Known, why)
			}
		default:
			s.Logger.InfoContext(ctx, "secrets redacted from a result", "plugin", plugin, "name", name, "found", why)
			rec("redaction", n, why)
		}
	}
	if sc.strip > 0 {
		rec("strip", sc.strip, "hidden characters removed (results_hidden_text = \"strip\")")
	}
}

func foundKinds(ms []secrets.Match) string {
	set := map[string]bool{}
	for _, m := range ms {
		set[string(m.Kind)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
