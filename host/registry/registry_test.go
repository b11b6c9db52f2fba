package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKCheck: every declaration go-sdk's Add* functions panic on is a
// load error naming it, checked in memory (no plugin needed).
func TestSDKCheck(t *testing.T) {
	tool := func(schema string) *Entry {
		return &Entry{Tools: []*Tool{{Declared: "t", Def: &mcp.Tool{Name: "p_t", InputSchema: json.RawMessage(schema)}}}}
	}
	for _, c := range []struct {
		name string
		e    *Entry
		want string
	}{
		{"header on an object", tool(`{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`),
			`tool "t": refused by go-sdk`},
		{"nested header on an array", tool(`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"X-A"}}}}}`),
			`property "o.a"`},
		{"header name not a token", tool(`{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"X O"}}}`),
			"invalid character"},
		{"empty header name", tool(`{"type":"object","properties":{"s":{"type":"string","x-mcp-header":""}}}`),
			"non-empty string"},
		{"duplicate header", tool(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"},"b":{"type":"integer","x-mcp-header":"x-a"}}}`),
			"duplicate"},
		{"input schema not an object", tool(`{"type":"string"}`), `must have type "object"`},
		{"resource URI", &Entry{Resources: []*Resource{{Def: &mcp.Resource{URI: "res://x/%zz", Name: "r"}}}},
			`resource "res://x/%zz": refused by go-sdk`},
		{"URI template", &Entry{Templates: []*Template{{Def: &mcp.ResourceTemplate{URITemplate: "tpl://{x", Name: "t"}}}},
			`resource template "tpl://{x": refused by go-sdk`},
	} {
		err := sdkCheck(c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	ok := tool(`{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"X-S"},"n":{"type":"integer"}}}`)
	ok.Resources = []*Resource{{Def: &mcp.Resource{URI: "res://x/fine", Name: "r"}}}
	ok.Templates = []*Template{{Def: &mcp.ResourceTemplate{URITemplate: "tpl://{x}", Name: "t"}}}
	ok.Prompts = []*Prompt{{Declared: "p", Def: &mcp.Prompt{Name: "p_p"}}}
	if err := sdkCheck(ok); err != nil {
		t.Fatalf("valid declarations refused: %v", err)
	}
}

func TestGuard(t *testing.T) {
	if err := Guard(func() { panic(errors.New("boom")) }); err == nil || err.Error() != "boom" {
		t.Fatalf("Guard = %v", err)
	}
	if err := Guard(func() {}); err != nil {
		t.Fatalf("Guard = %v", err)
	}
}

// TestArgumentError: validation failures name the argument and say what
// was expected, in JSON's words (before: `type: <invalid reflect.Value> has
// type "null", want "number"`).
func TestArgumentError(t *testing.T) {
	var s jsonschema.Schema
	json.Unmarshal([]byte(`{"type":"object","required":["n"],"additionalProperties":false,"properties":{
		"n":{"type":"number","minimum":3,"maximum":6},
		"f":{"type":"number","exclusiveMaximum":2.5,"multipleOf":0.5},
		"o":{"type":"object","properties":{"b":{"type":["string","null"]},"c":{"type":"integer"}}},
		"xs":{"type":"array","items":{"type":"integer"}},
		"e":{"enum":["a","b"]}}}`), &s)
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"n":null}`, `argument "n": got null, want number`},
		{`{"n":"4"}`, `argument "n": got string, want number`},
		{`{"n":4,"o":{"b":1}}`, `argument "o.b": got integer, want string or null`},
		{`{"n":4,"o":{"c":1.5}}`, `argument "o.c": got number, want integer`},
		{`{"n":4,"o":null}`, `argument "o": got null, want object`},
		{`{"n":4,"xs":[1,"a"]}`, `argument "xs[1]": got string, want integer`},
		{`{"n":1}`, `argument "n": 1 is less than the minimum 3`},
		{`{"n":9}`, `argument "n": 9 is greater than the maximum 6`},
		{`{"n":4,"f":3.5}`, `argument "f": 3.5 must be less than 2.5`},
		{`{"n":4,"f":0.75}`, `argument "f": 0.75 is not a multiple of 0.5`},
		{`{"n":4,"e":"z"}`, `argument "e": enum: z does not equal any of`},
		{`{}`, `missing required arguments ["n"]`},
		{`{"n":4,"zz":1}`, `unexpected arguments ["zz"]`},
	} {
		var v any
		json.Unmarshal([]byte(c.args), &v)
		verr := r.Validate(v)
		if verr == nil {
			t.Fatalf("%s: valid?", c.args)
		}
		got := argumentError(&s, v, verr)
		if !strings.Contains(got, c.want) || strings.Contains(got, "reflect") || strings.Contains(got, "validating") {
			t.Errorf("%s: got %q, want %q", c.args, got, c.want)
		}
	}
}

// loadFixture loads a fixture plugin under a name of its own.
func loadFixture(t *testing.T, rt *plugin.Runtime, fix, name string) *plugin.Plugin {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, fix))
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), plugin.Config{Name: name, Source: name + ".wasm", Wasm: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func newRuntime(t *testing.T) *plugin.Runtime {
	t.Helper()
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: filepath.Join(os.TempDir(), "mcpwasm-test-cache")})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// TestRankedCollisions: whatever order plugins arrive in, the plugin of the
// best rank serves a contested URI or name; one displaced by a better rank
// is withdrawn, and served again when what displaced it goes.
func TestRankedCollisions(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	// Five plugins declaring dup://shared arrive worst rank first.
	reg := New()
	var ps []*plugin.Plugin
	for i := range 5 {
		ps = append(ps, loadFixture(t, rt, "dup_fast", "d"+string(rune('0'+i))))
	}
	for rank := 4; rank >= 0; rank-- {
		ch, err := reg.AddRanked(ctx, ps[rank], AddOptions{}, rank)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Added) != 1 || ch.Added[0].Plugin != ps[rank] {
			t.Fatalf("rank %d: the better-ranked plugin is not published: %+v", rank, ch)
		}
		if rank < 4 && (len(ch.Removed) != 1 || ch.Removed[0].Plugin != ps[rank+1]) {
			t.Fatalf("rank %d: the displaced plugin is not withdrawn: %+v", rank, ch)
		}
	}
	if owner, _ := reg.ResourceOwner("dup://shared"); owner != ps[0] {
		t.Fatalf("owner = %s, want d0", owner.Name())
	}
	// Removing the owner serves the next in rank.
	ch := reg.Remove(ps[0])
	if len(ch.Added) != 1 || ch.Added[0].Plugin != ps[1] || len(ch.Removed) != 1 || ch.Removed[0].Plugin != ps[0] {
		t.Fatalf("after removing d0: %+v", ch)
	}
	refused := reg.Settle()
	if len(refused) != 3 || !strings.Contains(refused[0].Err.Error(), `plugin "d2": resource "dup://shared" is also declared by plugin "d1"`) {
		t.Fatalf("refused = %v", refused)
	}
	if got := reg.Plugins(); len(got) != 1 || got[0] != ps[1] {
		t.Fatalf("plugins after Settle = %v", got)
	}
}

// TestRankedCollisionsReinstate: plugins arriving in reverse rank order end
// as a load in rank order would (a, rank 0, and b, rank 2, declare the same
// unprefixed tools; x, rank 1, and c, rank 3, the same URI), and a plugin
// blocked only by one that goes is served again.
func TestRankedCollisionsReinstate(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	reg := New()
	a := loadFixture(t, rt, "constant", "a")    // unprefixed tools a, b
	b := loadFixture(t, rt, "constant", "b")    // unprefixed tools a, b
	c := loadFixture(t, rt, "dup_fast", "c")    // dup://shared
	bres := loadFixture(t, rt, "slow_dup", "x") // dup://shared too (rank 1, with b)
	_ = bres
	if _, err := reg.AddRanked(ctx, c, AddOptions{}, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.AddRanked(ctx, bres, AddOptions{}, 1); err != nil {
		t.Fatal(err)
	}
	if reg.Served(c) || !reg.Served(bres) {
		t.Fatal("x (rank 1) must displace c (rank 3)")
	}
	if _, err := reg.AddRanked(ctx, b, AddOptions{Unprefixed: true}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.AddRanked(ctx, a, AddOptions{Unprefixed: true}, 0); err != nil {
		t.Fatal(err)
	}
	if !reg.Served(a) || reg.Served(b) || !reg.Served(bres) || reg.Served(c) {
		t.Fatalf("served: a %v b %v x %v c %v", reg.Served(a), reg.Served(b), reg.Served(bres), reg.Served(c))
	}
	// x goes: c is served again.
	ch := reg.Remove(bres)
	if !reg.Served(c) || len(ch.Added) != 1 || ch.Added[0].Plugin != c {
		t.Fatalf("c not reinstated: %+v", ch)
	}
}
