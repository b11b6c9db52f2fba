package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// maxPages bounds how many pages of one list the host follows at load.
const maxPages = 100

// read collects everything a plugin declares.
func read(ctx context.Context, p *plugin.Plugin, opts AddOptions) (*Entry, error) {
	e := &Entry{Plugin: p}
	var err error
	if e.Tools, err = readTools(ctx, p, opts); err != nil {
		return nil, err
	}
	if e.Resources, err = readResources(ctx, p); err != nil {
		return nil, err
	}
	skills, err := readSkills(ctx, p) // skill.go
	if err != nil {
		return nil, err
	}
	if e.Resources, err = withSkills(e.Resources, skills); err != nil {
		return nil, err
	}
	if e.Templates, err = readTemplates(ctx, p); err != nil {
		return nil, err
	}
	if e.Prompts, err = readPrompts(ctx, p, opts); err != nil {
		return nil, err
	}
	if err := sdkCheck(e); err != nil {
		return nil, err
	}
	if opts.Vet != nil {
		if e, err = opts.Vet(e, isFresh(ctx)); err != nil {
			return nil, err
		}
	}
	if !isFresh(ctx) {
		p.KeepDeclarations()
	}
	return e, nil
}

// freshKey marks a read after a plugin said its lists changed: the answers
// come from the guest, never from the load cache.
type freshKey struct{}

func withFresh(ctx context.Context) context.Context { return context.WithValue(ctx, freshKey{}, true) }

func isFresh(ctx context.Context) bool { return ctx.Value(freshKey{}) != nil }

// envelope encodes an export's input: the MCP params and the host context.
func envelope(info RequestInfo, p *plugin.Plugin, params any, cc abi.Context) ([]byte, error) {
	cc = info.context(cc)
	cc.Plugin = p.Name()
	return json.Marshal(abi.Request{Request: params, Context: cc})
}

// readDefs reads export's paged list key (nil when the plugin does not
// export it) and decodes each entry into a T; an entry that does not decode
// is an error naming the export, what it lists and the entry's index.
func readDefs[T any](ctx context.Context, p *plugin.Plugin, export, key, what string) ([]T, error) {
	if !p.Exports(export) {
		return nil, nil
	}
	raws, err := readList(ctx, p, export, key, true)
	if err != nil {
		return nil, err
	}
	defs := make([]T, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &defs[i]); err != nil {
			return nil, fmt.Errorf("%s: %s #%d: %v", export, what, i, err)
		}
	}
	return defs, nil
}

// readList calls a list export, following nextCursor, and returns the items
// under key. Legacy exports (describe) take no input and have one page.
func readList(ctx context.Context, p *plugin.Plugin, export, key string, paged bool) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for page := 0; ; page++ {
		var input []byte
		if paged {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			var err error
			if input, err = envelope(RequestInfo{}, p, params, abi.Context{}); err != nil {
				return nil, err
			}
		}
		var out []byte
		var cerr *plugin.Error
		if isFresh(ctx) {
			out, cerr = p.Invoke(ctx, export, input)
		} else {
			out, cerr = p.List(ctx, export, input) // at load: from the load cache if it has them
		}
		if cerr != nil {
			return nil, fmt.Errorf("%s failed: %s", export, cerr.Message)
		}
		var list map[string]json.RawMessage
		if err := json.Unmarshal(out, &list); err != nil {
			return nil, fmt.Errorf("%s returned invalid JSON: %v", export, err)
		}
		var items []json.RawMessage
		if raw, ok := list[key]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%s: %q is not a list: %v", export, key, err)
			}
		} else {
			return nil, fmt.Errorf("%s returned no %q list", export, key)
		}
		all = append(all, items...)
		var next string
		if raw, ok := list["nextCursor"]; ok && paged {
			_ = json.Unmarshal(raw, &next)
		}
		if next == "" {
			return all, nil
		}
		if page+1 >= maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", export, maxPages)
		}
		cursor = next
	}
}
