package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// diffCalls are tool calls with deterministic answers, per first-party
// plugin, on top of calling every tool with no arguments.
var diffCalls = map[string][]string{
	"textkit": {
		`{"name":"count","arguments":{"text":"héllo wörld\nsecond line\n\n"}}`,
		`{"name":"case","arguments":{"text":"HTTPServerError and myVar","to":"snake"}}`,
		`{"name":"diff","arguments":{"a":"a\nb\nc\nd\n","b":"a\nB\nc\nd\ne\n"}}`,
		`{"name":"regex_find","arguments":{"text":"2024-01-02 and 2025-12-31","pattern":"(\\d{4})-(\\d{2})"}}`,
		`{"name":"replace","arguments":{"text":"aaa bbb aaa","find":"a+","replacement":"x","regex":true}}`,
		`{"name":"slugify","arguments":{"text":"Héllo, Wörld! 2024"}}`,
	},
	"hashkit": {
		`{"name":"hash","arguments":{"text":"abc","algorithm":"sha256"}}`,
		`{"name":"hash","arguments":{"text":"abc","algorithm":"crc32"}}`,
		`{"name":"encode","arguments":{"text":"hi there?","encoding":"base64url"}}`,
		`{"name":"decode","arguments":{"text":"aGkgdGhlcmU","encoding":"base64"}}`,
		`{"name":"jwt_decode","arguments":{"token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}}`,
	},
	"mdtools": {
		`{"name":"toc","arguments":{"markdown":"# A\n## B\ntext\n## C\n"}}`,
		`{"name":"links","arguments":{"markdown":"[x](http://a) ![i](b.png) [r][1]\n\n[1]: http://r"}}`,
		`{"name":"to_text","arguments":{"markdown":"**bold** _it_ \u0060code\u0060\n\n- item"}}`,
	},
	"units": {
		`{"name":"convert","arguments":{"value":3.5,"from":"mi","to":"km"}}`,
		`{"name":"convert","arguments":{"value":100,"from":"F","to":"C"}}`,
		`{"name":"list_units","arguments":{}}`,
	},
}

// Every module this repository builds (plugins and fixtures, from WAT,
// Rust, AssemblyScript, TinyGo, standard Go and C) answers the same with
// interruption points as it does unchanged under wazero's own checks: its
// declarations, and each tool called with no arguments and with the
// deterministic calls above. Only timing may differ, so calls that time
// out under the original are not compared.
func TestInterruptionPointsChangeNothing(t *testing.T) {
	fixture.Differential(t, "runs every module twice")
	files := fixture.Modules(t)
	// The shared cache: the rewritten modules other tests build are built
	// once. (wazero's cache key covers WithCloseOnContextDone, which changes
	// the code, as well as the bytes: AssignModuleID.)
	rt := warmRuntime(t, plugin.RuntimeOptions{})
	compared := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		if name == "calltree" || name == "list_unbounded" || name == "sleep_forever" || name == "indsleep" {
			continue // never ends under wazero's own checks; an endless sleep the rewrite makes last
		}
		wasm, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ps [2]*plugin.Plugin
		for i, mode := range []plugin.InterruptMode{plugin.InterruptEngine, plugin.InterruptPoints} {
			ps[i], err = rt.Load(context.Background(), plugin.Config{Name: name, Source: f, Wasm: wasm,
				Timeout: time.Second, Interrupts: mode})
			if err != nil {
				break
			}
			defer ps[i].Close(context.Background())
		}
		if ps[0] == nil || ps[1] == nil {
			if (ps[0] == nil) != (ps[1] == nil) {
				t.Errorf("%s: loads in one mode only: %v", name, err)
			}
			continue
		}
		var listed []byte
		for _, export := range declExports {
			out, cerr := ps[0].Invoke(context.Background(), export, []byte(`{}`))
			out2, cerr2 := ps[1].Invoke(context.Background(), export, []byte(`{}`))
			compared += compare(t, name+" "+export, out, cerr, out2, cerr2, false)
			if export == abi.ExportListTools && cerr == nil {
				listed = out
			}
		}
		if !ps[0].Exports(abi.ExportCallTool) {
			continue
		}
		for _, req := range toolRequests(name, listed) {
			input := []byte(`{"request":` + req + `,"context":{}}`)
			out, cerr := ps[0].Invoke(context.Background(), abi.ExportCallTool, input)
			if cerr != nil && (cerr.Category == abi.ErrTimeout || cerr.Category == abi.ErrStackOverflow) {
				continue // timing, and stack depth, are what the rewrite may change
			}
			out2, cerr2 := ps[1].Invoke(context.Background(), abi.ExportCallTool, input)
			compared += compare(t, name+" "+req, out, cerr, out2, cerr2, random(req))
		}
	}
	t.Logf("%d answers compared across %d modules", compared, len(files))
}

// declExports are the declaration exports the differential tests read.
var declExports = []string{abi.ExportListTools, abi.ExportListResources, abi.ExportListResourceTemplates, abi.ExportListPrompts, abi.ExportDescribe}

// toolRequests are the tools/call requests the differential tests send
// module name: each tool its list_tools answer (listed) names, with no
// arguments, then its diffCalls.
func toolRequests(name string, listed []byte) []string {
	var calls []string
	var list struct{ Tools []struct{ Name string } }
	json.Unmarshal(listed, &list)
	for _, tool := range list.Tools {
		calls = append(calls, `{"name":"`+tool.Name+`","arguments":{}}`)
	}
	return append(calls, diffCalls[name]...)
}

// random reports whether a request's answer differs on every call (random
// identifiers, the current time, the fresh fixture's random values and clock).
func random(req string) bool {
	return strings.Contains(req, `"name":"uuid"`) || strings.Contains(req, `"name":"time"`) ||
		strings.Contains(req, `"name":"random"`) || strings.Contains(req, `"name":"clock"`)
}

// compare reports two answers that differ (only in category when random:
// random identifiers and the current time differ on every call).
func compare(t *testing.T, what string, out []byte, cerr *plugin.Error, out2 []byte, cerr2 *plugin.Error, random bool) int {
	t.Helper()
	if (cerr == nil) != (cerr2 == nil) || (cerr != nil && cerr.Category != cerr2.Category) {
		t.Errorf("%s: %+v unchanged, %+v with interruption points", what, cerr, cerr2)
		return 1
	}
	if !bytes.Equal(out, out2) && !random {
		t.Errorf("%s: answers differ:\n%.300s\n%.300s", what, out, out2)
	}
	return 1
}
