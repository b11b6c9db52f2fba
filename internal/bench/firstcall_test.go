package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The first-call plan takes one cheap tool per plugin file, the preferred
// one when listed, with its required arguments filled by type.
func TestFirstCallPlan(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"units.wasm", "echo.wasm", "other.wasm"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := map[string]any{"type": "object", "required": []any{"n", "unit", "tags", "s"},
		"properties": map[string]any{"n": map[string]any{"type": "number"}, "unit": map[string]any{"type": "string", "enum": []any{"m", "km"}},
			"tags": map[string]any{"type": "array"}, "s": map[string]any{}}}
	tools := []*mcp.Tool{{Name: "units_list_units"}, {Name: "units_convert", InputSchema: schema}, {Name: "echo_echo"}, {Name: "lost_x"}}
	plan := firstCallPlan(dir, tools)
	if len(plan) != 2 || plan[0].tool != "echo_echo" || plan[1].tool != "units_convert" {
		t.Fatalf("plan %+v", plan)
	}
	got, _ := json.Marshal(plan[1].args)
	if string(got) != `{"n":1,"s":"a","tags":[],"unit":"m"}` {
		t.Errorf("arguments %s", got)
	}
}
