//go:build !wasip1

package mcpwasm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

const objSchema = `{"type":"object","properties":{"text":{"type":"string"}}}`

// withTools replaces the registry for one test.
func withTools(t *testing.T, register func()) {
	t.Helper()
	saved := tools
	tools = nil
	register()
	t.Cleanup(func() { tools = saved; SetTestConfig(nil); SetTestRequests(nil) })
}

func TestListTools(t *testing.T) {
	withTools(t, func() {
		Tool("upper", "Upper-case", objSchema, func(*Call) (*Result, error) { return nil, nil }).
			Title("Upper").OutputSchema(`{"type":"object"}`).Annotations(`{"readOnlyHint":true}`)
		Tool("a-b-c_9", "", `{"type":"object"}`, func(*Call) (*Result, error) { return nil, nil })
		Tool("job", "", `{"type":"object"}`, func(*Call) (*Result, error) { return nil, nil }).Task("required").TaskInputFirst()
	})
	out, err := ListTools()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tools":[{"name":"upper","title":"Upper","description":"Upper-case","inputSchema":` + objSchema +
		`,"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"a-b-c_9","inputSchema":{"type":"object"}},` +
		`{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required","inputFirst":true}}]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestListToolsRefusesMistakes(t *testing.T) {
	h := func(*Call) (*Result, error) { return nil, nil }
	for _, tc := range []struct {
		name, want string
		register   func()
	}{
		{"bad name", `tool name "a b" may contain only`, func() { Tool("a b", "", objSchema, h) }},
		{"dotted name", `tool name "a.b" may contain only`, func() { Tool("a.b", "", objSchema, h) }},
		{"empty name", `must be 1 to 64 characters`, func() { Tool("", "", objSchema, h) }},
		{"long name", `must be 1 to 64 characters`, func() { Tool(strings.Repeat("x", 65), "", objSchema, h) }},
		{"duplicate", `tool "x" is registered twice`, func() { Tool("x", "", objSchema, h); Tool("x", "", objSchema, h) }},
		{"no handler", `tool "x" has no handler`, func() { Tool("x", "", objSchema, nil) }},
		{"schema not JSON", `tool "x": inputSchema is not valid JSON`, func() { Tool("x", "", `{`, h) }},
		{"schema not object", `tool "x": inputSchema must be a JSON Schema object`, func() { Tool("x", "", `{"type":"string"}`, h) }},
		{"output schema", `tool "x": outputSchema must be`, func() { Tool("x", "", objSchema, h).OutputSchema(`{"type":"array"}`) }},
		{"annotations", `tool "x": annotations must be a JSON object`, func() { Tool("x", "", objSchema, h).Annotations(`1`) }},
		{"task mode", `tool "x": Task mode must be`, func() { Tool("x", "", objSchema, h).Task("always") }},
		{"input first alone", `tool "x": TaskInputFirst without Task`, func() { Tool("x", "", objSchema, h).TaskInputFirst() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withTools(t, tc.register)
			_, err := ListTools()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCallResults(t *testing.T) {
	withTools(t, func() {
		Tool("upper", "", objSchema, func(c *Call) (*Result, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			return Text(strings.ToUpper(a.Text)), nil
		})
		Tool("fail", "", objSchema, func(*Call) (*Result, error) { return Text("ignored"), errors.New("city not found: Atlantis") })
		Tool("nil", "", objSchema, func(*Call) (*Result, error) { return nil, nil })
		Tool("empty", "", objSchema, func(*Call) (*Result, error) { return Text(""), nil })
		Tool("json", "", objSchema, func(*Call) (*Result, error) { return JSON(map[string]int{"n": 1}), nil })
		Tool("html", "", objSchema, func(*Call) (*Result, error) { return JSON(map[string]string{"s": "<a&b>"}), nil })
		Tool("jsonlist", "", objSchema, func(*Call) (*Result, error) { return JSON([]int{1, 2}), nil })
		Tool("badjson", "", objSchema, func(*Call) (*Result, error) { return JSON(func() {}), nil })
		Tool("image", "", objSchema, func(*Call) (*Result, error) {
			return Image([]byte{0x89, 'P', 'N', 'G'}, "image/png").AddText("a PNG").WithMeta("k", 1), nil
		})
		Tool("unencodable", "", objSchema, func(*Call) (*Result, error) { return Text("x").WithStructured(make(chan int)), nil })
		Tool("panic", "", objSchema, func(*Call) (*Result, error) { var m map[string]int; m["x"] = 1; return nil, nil })
	})
	for _, tc := range []struct{ tool, args, want string }{
		{"upper", `{"text":"abc"}`, `{"content":[{"type":"text","text":"ABC"}]}`},
		{"upper", ``, `{"content":[{"type":"text","text":""}]}`},
		{"upper", `{"text":1}`, `{"content":[{"type":"text","text":"invalid arguments: json: cannot unmarshal number into Go struct field .text of type string"}],"isError":true}`},
		{"fail", `{}`, `{"content":[{"type":"text","text":"city not found: Atlantis"}],"isError":true}`},
		{"nil", `{}`, `{"content":[]}`},
		{"empty", `{}`, `{"content":[{"type":"text","text":""}]}`},
		{"json", `{}`, `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`},
		{"html", `{}`, `{"content":[{"type":"text","text":"{\"s\":\"<a&b>\"}"}],"structuredContent":{"s":"<a&b>"}}`},
		{"jsonlist", `{}`, `{"content":[{"type":"text","text":"[1,2]"}]}`},
		{"badjson", `{}`, `{"content":[{"type":"text","text":"cannot encode the result as JSON: json: unsupported type: func()"}],"isError":true}`},
		{"image", `{}`, `{"content":[{"type":"image","data":"iVBORw==","mimeType":"image/png"},{"type":"text","text":"a PNG"}],"_meta":{"k":1}}`},
		{"unencodable", `{}`, `{"content":[{"type":"text","text":"the tool's result could not be encoded as JSON: json: unsupported type: chan int"}],"isError":true}`},
		{"panic", `{}`, `{"content":[{"type":"text","text":"internal error: the tool \"panic\" panicked: assignment to entry in nil map"}],"isError":true}`},
		{"nope", `{}`, `{"content":[{"type":"text","text":"unknown tool \"nope\"; this plugin has: badjson, empty, fail, html, image, json, jsonlist, nil, panic, unencodable, upper"}],"isError":true}`},
	} {
		inv := Invoke(tc.tool, tc.args)
		if inv.Err != nil || string(inv.Output) != tc.want {
			t.Errorf("%s %s:\ngot  %s (err %v)\nwant %s", tc.tool, tc.args, inv.Output, inv.Err, tc.want)
		}
	}
	if got := Invoke("upper", `{"text":"x"}`).Text(); got != "X" {
		t.Errorf("Text() = %q", got)
	}
}

func TestMalformedInput(t *testing.T) {
	for _, in := range []string{`garbage`, `[]`, `{"request":{}}`, `{"request":{"name":1}}`} {
		if inv := InvokeInput([]byte(in)); inv.Err == nil || inv.Output != nil {
			t.Errorf("%s: want an error and no output, got %s", in, inv.Output)
		}
	}
}

func TestCallSeesRequestAndContext(t *testing.T) {
	var got *Call
	withTools(t, func() {
		Tool("see", "", objSchema, func(c *Call) (*Result, error) { got = c; return nil, nil })
	})
	in := `{"request":{"name":"see","_meta":{"progressToken":"p"}},"context":{"id":7,"_meta":{"progressToken":"p"},` +
		`"plugin":"text","tool":"see","deadline_ms":1500,"mounts":[{"path":"/data","read_only":true}],"future":1}}`
	before := time.Now()
	if inv := InvokeInput([]byte(in)); inv.Err != nil {
		t.Fatal(inv.Err)
	}
	if string(got.Arguments) != "{}" || got.Meta["progressToken"] != "p" || string(got.Context.ID) != "7" ||
		got.Context.Plugin != "text" || got.Context.Tool != "see" || len(got.Context.Mounts) != 1 ||
		got.Context.Mounts[0] != (Mount{"/data", true}) {
		t.Errorf("call = %+v", got)
	}
	if d, ok := got.Deadline(); !ok || d.Before(before.Add(1500*time.Millisecond)) || d.After(time.Now().Add(1500*time.Millisecond)) {
		t.Errorf("Deadline() = %v, %v; the call started after %v", d, ok, before)
	}
	// Invoke builds the context the host would: plugin "test", the tool, a deadline.
	if inv := Invoke("see", ""); inv.Err != nil {
		t.Fatal(inv.Err)
	}
	if got.Context.Plugin != "test" || got.Context.Tool != "see" || got.Context.DeadlineMs != 5000 {
		t.Errorf("Invoke's context = %+v", got.Context)
	}
}

func TestNotificationsConfigAndRequests(t *testing.T) {
	withTools(t, func() {
		Tool("busy", "", objSchema, func(c *Call) (*Result, error) {
			c.Progress(1, 2, "half")
			c.Progress(2, 0, "")
			c.Log(LevelWarning, "careful")
			c.LogAs(LevelInfo, "db", map[string]int{"rows": 3})
			c.Log(LevelInfo, func() {})
			c.NotifyResourceUpdated("notes://a")
			c.NotifyToolListChanged()
			c.NotifyResourceListChanged()
			c.NotifyPromptListChanged()
			c.NotifyURLElicitationCompleted("el-1")
			v, ok := Config("greeting")
			_, missing := Config("nope")
			var m struct {
				Content struct{ Text string } `json:"content"`
			}
			serr := c.CreateMessage(map[string]any{"maxTokens": 1}, &m)
			eerr := c.Elicit(map[string]any{"message": "?"}, nil)
			roots, rerr := c.ListRoots()
			var he *HostError
			return JSON(map[string]any{"config": v, "ok": ok, "missing": missing, "sampled": m.Content.Text,
				"sample_err": serr == nil, "elicit_host_error": errors.As(eerr, &he) && he.Message == "no elicitation",
				"roots": len(roots), "roots_err": rerr == nil}), nil
		})
	})
	SetTestConfig(map[string]string{"greeting": "hi"})
	SetTestRequests(func(fn string, params json.RawMessage) json.RawMessage {
		switch {
		case fn == "create_message" && string(params) == `{"maxTokens":1}`:
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}`)
		case fn == "list_roots":
			return json.RawMessage(`{"roots":[{"uri":"file:///a"}]}`)
		}
		return json.RawMessage(`{"error":{"message":"no elicitation"}}`)
	})
	inv := Invoke("busy", `{}`)
	want := `{"config":"hi","elicit_host_error":true,"missing":false,"ok":true,"roots":1,"roots_err":true,"sample_err":true,"sampled":"ok"}`
	if inv.Text() != want {
		t.Errorf("got  %s\nwant %s", inv.Text(), want)
	}
	var notes []string
	for _, n := range inv.Notifications {
		notes = append(notes, n.Function+" "+string(n.Payload))
	}
	wantNotes := []string{
		`notify_progress {"progress":1,"total":2,"message":"half"}`,
		`notify_progress {"progress":2}`,
		`notify_logging_message {"level":"warning","data":"careful"}`,
		`notify_logging_message {"level":"info","logger":"db","data":{"rows":3}}`,
		`notify_logging_message {"level":"info","data":"unencodable log data: json: unsupported type: func()"}`,
		`notify_resource_updated {"uri":"notes://a"}`,
		`notify_tool_list_changed `,
		`notify_resource_list_changed `,
		`notify_prompt_list_changed `,
		`notify_url_elicitation_completed {"elicitationId":"el-1"}`,
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notifications:\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
}
