// Command jsonfetch is a first-party example plugin that calls an HTTP API:
// its get_json tool fetches a URL and returns the JSON value at a dotted
// path ("items.0.name"). It is written with the plain Extism Go PDK
// (github.com/extism/go-pdk), so it runs unchanged on any Extism host; under
// mcpwasm it reaches only the hosts the operator grants in [[plugin.net]].
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// lookup returns the value at path in doc: dot-separated object keys and
// array indexes; an empty path is the whole document.
func lookup(doc any, path string) (any, error) {
	if path == "" {
		return doc, nil
	}
	cur := doc
	for i, part := range strings.Split(path, ".") {
		at := strings.Join(strings.Split(path, ".")[:i+1], ".")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, fmt.Errorf("%s: no key %q", at, part)
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 || n >= len(v) {
				return nil, fmt.Errorf("%s: %q is not an index of an array of %d", at, part, len(v))
			}
			cur = v[n]
		default:
			return nil, fmt.Errorf("%s: cannot index into %T", at, cur)
		}
	}
	return cur, nil
}

// extract parses body as JSON and returns the value at path, as JSON.
func extract(body []byte, path string) (json.RawMessage, error) {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the response is not JSON: %v", err)
	}
	v, err := lookup(doc, path)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func main() {}
