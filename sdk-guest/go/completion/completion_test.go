//go:build !wasip1

package completion

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// withCompleters replaces the registry for one test, with a plugin that
// declares the prompt "review" (arguments code and language) and the
// template "items://{id}" when declared is set, and nothing otherwise (as if
// it linked neither the prompts nor the resources package).
func withCompleters(t *testing.T, declared bool, register func()) {
	t.Helper()
	saved, savedP, savedT := completers, guest.PromptArguments, guest.TemplateVariables
	completers, guest.PromptArguments, guest.TemplateVariables = nil, nil, nil
	if declared {
		guest.PromptArguments = func(name string) ([]string, bool) {
			return []string{"code", "language"}, name == "review"
		}
		guest.TemplateVariables = func(tmpl string) ([]string, bool) {
			return []string{"id"}, tmpl == "items://{id}"
		}
	}
	register()
	t.Cleanup(func() { completers, guest.PromptArguments, guest.TemplateVariables = saved, savedP, savedT })
}

var (
	review = Ref{Type: RefPrompt, Name: "review"}
	items  = Ref{Type: RefResource, URI: "items://{id}"}
)

func TestComplete(t *testing.T) {
	var seen *Request
	withCompleters(t, true, func() {
		ForPrompt("review", "language", Prefix("go", "python", "rust", "typescript"))
		ForTemplate("items://{id}", "id", func(r *Request) ([]string, error) {
			seen = r
			if r.Value == "x" {
				return nil, errors.New("the item index is unavailable")
			}
			var out []string
			for i := 0; i < 150; i++ {
				if s := fmt.Sprint(i); strings.HasPrefix(s, r.Value) {
					out = append(out, s)
				}
			}
			return out, nil
		})
		ForPrompt("review", "code", func(*Request) ([]string, error) { panic("boom") })
	})
	if _, err := mcpwasm.ListTools(); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	for _, tc := range []struct {
		ref        Ref
		arg, value string
		want       string
	}{
		{review, "language", "", `{"completion":{"values":["go","python","rust","typescript"]}}`},
		{review, "language", "r", `{"completion":{"values":["rust"]}}`},
		{review, "language", "R", `{"completion":{"values":[]}}`},
		{review, "other", "", `{"completion":{"values":[]}}`},
		{Ref{Type: RefPrompt, Name: "other"}, "language", "", `{"completion":{"values":[]}}`},
		{Ref{Type: RefResource, URI: "review"}, "language", "", `{"completion":{"values":[]}}`},
		{items, "id", "14", `{"completion":{"values":["14","140","141","142","143","144","145","146","147","148","149"]}}`},
	} {
		inv := Invoke(tc.ref, tc.arg, tc.value)
		if inv.Err != nil || string(inv.Output) != tc.want {
			t.Errorf("%v %s=%q:\ngot  %s (%v)\nwant %s", tc.ref, tc.arg, tc.value, inv.Output, inv.Err, tc.want)
		}
	}
	// More than MCP's 100 values: the first 100, the total, and hasMore.
	inv := Invoke(items, "id", "")
	if inv.Err != nil || len(inv.Values) != 100 || inv.Values[99] != "99" || inv.Total != 150 || !inv.HasMore {
		t.Errorf("150 values: %d values, total %d, hasMore %v, %v", len(inv.Values), inv.Total, inv.HasMore, inv.Err)
	}
	if inv := Invoke(items, "id", "x"); inv.Err == nil || inv.Err.Error() != "the item index is unavailable" || inv.Output != nil {
		t.Errorf("handler error: %s, %v", inv.Output, inv.Err)
	}
	if inv := Invoke(review, "code", ""); inv.Err == nil || inv.Err.Error() != `internal error: the completion of "code" panicked: boom` {
		t.Errorf("panic: %v", inv.Err)
	}

	in := `{"request":{"ref":{"type":"ref/resource","uri":"items://{id}"},"argument":{"name":"id","value":"149"},` +
		`"context":{"arguments":{"kind":"book"}}},"context":{"plugin":"shop"}}`
	if inv := InvokeInput([]byte(in)); inv.Err != nil || !reflect.DeepEqual(inv.Values, []string{"149"}) {
		t.Errorf("InvokeInput: %v %v", inv.Values, inv.Err)
	}
	if seen.Ref != items || seen.Argument != "id" || seen.Value != "149" || seen.Resolved["kind"] != "book" || seen.Context.Plugin != "shop" {
		t.Errorf("the handler saw %+v", seen)
	}
}

func TestMistakesStopTheLoad(t *testing.T) {
	h := Prefix("x")
	for _, tc := range []struct {
		name     string
		declared bool
		register func()
		want     string
	}{
		{"no prompts package", false, func() { ForPrompt("review", "code", h) },
			`completion.ForPrompt("review", "code"): the plugin declares no prompt "review" (declare it with prompts.Prompt)`},
		{"undeclared prompt", true, func() { ForPrompt("revue", "code", h) }, `declares no prompt "revue"`},
		{"undeclared argument", true, func() { ForPrompt("review", "lang", h) }, `the prompt declares no argument "lang"`},
		{"no resources package", false, func() { ForTemplate("items://{id}", "id", h) },
			`completion.ForTemplate("items://{id}", "id"): the plugin declares no resource template "items://{id}" (declare it with resources.Template)`},
		{"undeclared template", true, func() { ForTemplate("items://{key}", "key", h) }, `declares no resource template "items://{key}"`},
		{"undeclared variable", true, func() { ForTemplate("items://{id}", "key", h) }, `the template has no variable "key"`},
		{"twice", true, func() { ForPrompt("review", "code", h); ForPrompt("review", "code", h) }, `is registered twice`},
		{"no handler", true, func() { ForPrompt("review", "code", nil) }, `completion.ForPrompt("review", "code") has no handler`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withCompleters(t, tc.declared, tc.register)
			_, err := mcpwasm.ListTools()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ListTools: %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestHostFunctions(t *testing.T) {
	withCompleters(t, true, func() {
		ForPrompt("review", "language", func(r *Request) ([]string, error) {
			r.LogAs(mcpwasm.LevelDebug, "complete", r.Value)
			return nil, nil
		})
	})
	inv := Invoke(review, "language", "g")
	if len(inv.Notifications) != 1 || inv.Notifications[0].Function != "notify_logging_message" ||
		string(inv.Notifications[0].Payload) != `{"level":"debug","logger":"complete","data":"g"}` || inv.Values == nil {
		t.Errorf("%+v", inv)
	}
}
