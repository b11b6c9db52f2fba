//go:build !wasip1

package prompts

import (
	"errors"
	"strings"
	"testing"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

// withPrompts replaces the registry for one test.
func withPrompts(t *testing.T, register func()) {
	t.Helper()
	saved := prompts
	prompts = nil
	register()
	t.Cleanup(func() { prompts = saved })
}

func review(r *Request) (*Result, error) {
	lang := r.Arguments["language"]
	if lang == "" {
		lang = "code"
	}
	return Reply("Code review", UserText("Review this "+lang+":\n"+r.Arguments["code"])), nil
}

func TestList(t *testing.T) {
	withPrompts(t, func() {
		Prompt("review", "Review some code", review).Title("Review").
			RequiredArgument("code", "the code").Argument("language", "")
		Prompt("plain", "", review)
	})
	out, err := List()
	want := `{"prompts":[{"name":"review","title":"Review","description":"Review some code","arguments":` +
		`[{"name":"code","description":"the code","required":true},{"name":"language"}]},{"name":"plain"}]}`
	if err != nil || string(out) != want {
		t.Errorf("List:\ngot  %s (%v)\nwant %s", out, err, want)
	}
}

func TestMistakesStopTheLoad(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		register   func()
	}{
		{"bad name", `prompt "a.b": the name must be`, func() { Prompt("a.b", "", review) }},
		{"empty name", `prompt "": the name must be`, func() { Prompt("", "", review) }},
		{"long name", `the name must be 1 to 64`, func() { Prompt(strings.Repeat("p", 65), "", review) }},
		{"twice", `prompt "p" is registered twice`, func() { Prompt("p", "", review); Prompt("p", "", review) }},
		{"no handler", `prompt "p" has no handler`, func() { Prompt("p", "", nil) }},
		{"argument twice", `prompt "p": argument "a" is declared twice`, func() { Prompt("p", "", review).Argument("a", "").RequiredArgument("a", "") }},
		{"argument without name", `prompt "p" has an argument without a name`, func() { Prompt("p", "", review).Argument("", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPrompts(t, tc.register)
			_, err := mcpwasm.ListTools() // the first export the host calls
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ListTools: %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestGet(t *testing.T) {
	withPrompts(t, func() {
		Prompt("review", "Review some code", review).RequiredArgument("code", "").Argument("language", "")
		Prompt("chat", "", func(r *Request) (*Result, error) {
			return Reply("", UserText("hi"), AssistantText("hello")).
				Add(Message{RoleUser, mcpwasm.ImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png")}), nil
		})
		Prompt("empty", "", func(*Request) (*Result, error) { return &Result{}, nil })
		Prompt("nil", "", func(*Request) (*Result, error) { return nil, nil })
		Prompt("fail", "", func(*Request) (*Result, error) { return nil, errors.New("no such code base") })
		Prompt("panic", "", func(*Request) (*Result, error) { var m map[string]int; m["x"] = 1; return nil, nil })
	})
	for _, tc := range []struct {
		name      string
		args      map[string]string
		want, err string
	}{
		{"review", map[string]string{"code": "x := 1", "language": "go"},
			`{"description":"Code review","messages":[{"role":"user","content":{"type":"text","text":"Review this go:\nx := 1"}}]}`, ""},
		{"review", map[string]string{"code": ""},
			`{"description":"Code review","messages":[{"role":"user","content":{"type":"text","text":"Review this code:\n"}}]}`, ""},
		{"review", map[string]string{"language": "go"}, "", "code is required"},
		{"review", nil, "", "code is required"},
		{"chat", nil, `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}},` +
			`{"role":"assistant","content":{"type":"text","text":"hello"}},` +
			`{"role":"user","content":{"type":"image","data":"iVBORw==","mimeType":"image/png"}}]}`, ""},
		{"empty", nil, `{"messages":[]}`, ""},
		{"nil", nil, "", `the handler of the prompt "nil" returned no result`},
		{"fail", nil, "", "no such code base"},
		{"panic", nil, "", `internal error: the prompt "panic" panicked: assignment to entry in nil map`},
		{"nope", nil, "", `prompt "nope" not found`},
	} {
		inv := Invoke(tc.name, tc.args)
		if tc.err != "" {
			if inv.Err == nil || inv.Err.Error() != tc.err || inv.Output != nil {
				t.Errorf("%s %v: got %s, %v; want the error %q", tc.name, tc.args, inv.Output, inv.Err, tc.err)
			}
			continue
		}
		if inv.Err != nil || string(inv.Output) != tc.want {
			t.Errorf("%s %v:\ngot  %s (%v)\nwant %s", tc.name, tc.args, inv.Output, inv.Err, tc.want)
		}
	}
	if got := Invoke("chat", nil).Text(); got != "hi\nhello" {
		t.Errorf("Text() = %q", got)
	}
}

func TestGetSeesRequestAndHost(t *testing.T) {
	var seen *Request
	withPrompts(t, func() {
		Prompt("p", "", func(r *Request) (*Result, error) {
			seen = r
			r.Progress(1, 2, "")
			r.NotifyPromptListChanged()
			r.NotifyToolListChanged()
			return Reply("", UserText("x")), nil
		})
	})
	in := `{"request":{"name":"p","arguments":{"a":"1"}},"context":{"plugin":"docs","deadline_ms":100,"_meta":{"progressToken":7}}}`
	inv := InvokeInput([]byte(in))
	if inv.Err != nil || seen == nil || seen.Name != "p" || seen.Arguments["a"] != "1" || seen.Context.Plugin != "docs" {
		t.Fatalf("%v; the handler saw %+v", inv.Err, seen)
	}
	if _, ok := seen.Deadline(); !ok {
		t.Error("no deadline")
	}
	var got []string
	for _, n := range inv.Notifications {
		got = append(got, n.Function+" "+string(n.Payload))
	}
	want := `notify_progress {"progress":1,"total":2}|notify_prompt_list_changed |notify_tool_list_changed `
	if strings.Join(got, "|") != want {
		t.Errorf("notifications %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestMalformedInput(t *testing.T) {
	for _, in := range []string{`garbage`, `{"request":{"name":"p","arguments":{"a":1}}}`} {
		inv := InvokeInput([]byte(in))
		if inv.Err == nil || inv.Output != nil {
			t.Fatalf("%s: want an error and no output, got %s", in, inv.Output)
		}
		if want := "mcpwasm: get_prompt input is not a {request, context} object with string arguments: "; !strings.HasPrefix(inv.Err.Error(), want) {
			t.Errorf("%s: error %q, want it to begin %q", in, inv.Err, want)
		}
	}
}
