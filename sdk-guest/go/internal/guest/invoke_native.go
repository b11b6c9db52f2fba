//go:build !wasip1

package guest

import (
	"encoding/json"
	"errors"
	"strings"
)

// Invoke runs an export's run function on input the way the packages' test
// helpers (mcpwasm.InvokeInput and those of resources, prompts and
// completion) do: it begins a test call, so Test.Notes then holds what the
// call sent, runs it, and decodes its output into result. err is run's
// error, the one the export would fail with (error_set, return 1), or says
// that export, named as in ABI.md, answered invalid JSON.
//
// There is no error_set message to report besides: Guard sets one only
// under TinyGo, for a panic it cannot recover, and clears it when the
// handler returns, so when run returns normally none is set. (Standard Go
// recovers and returns the panic as run's error.)
func Invoke(export string, run func(input []byte) ([]byte, error), input []byte, result any) (out []byte, err error) {
	BeginTest()
	out, err = run(input)
	if err == nil {
		if jerr := json.Unmarshal(out, result); jerr != nil {
			err = errors.New(export + " answered invalid JSON: " + jerr.Error())
		}
	}
	return out, err
}

// TestInput is the input envelope the Invoke helpers send: request, and a
// context naming plugin "test" with a 5 s deadline, plus the entries of
// context (nil for none).
func TestInput(request any, context map[string]any) []byte {
	ctx := map[string]any{"plugin": "test", "deadline_ms": 5000}
	for k, v := range context {
		ctx[k] = v
	}
	in, _ := json.Marshal(map[string]any{"request": request, "context": ctx})
	return in
}

// JoinText joins with newlines the texts of the items text says have one:
// what the Invocations' Text methods return.
func JoinText[T any](items []T, text func(T) (string, bool)) string {
	var parts []string
	for _, it := range items {
		if t, ok := text(it); ok {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
