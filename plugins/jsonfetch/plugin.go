//go:build wasip1

package main

import (
	"encoding/json"
	"fmt"

	"github.com/extism/go-pdk"
)

//go:wasmexport list_tools
func listTools() int32 {
	pdk.OutputString(`{"tools":[{"name":"get_json","description":"GET a URL that answers JSON and return the value at a dotted path (e.g. items.0.name; empty for the whole document). Reaches only the hosts the operator granted.",` +
		`"inputSchema":{"type":"object","properties":{"url":{"type":"string","description":"https URL"},"path":{"type":"string","description":"dot-separated keys and array indexes"}},"required":["url"]},` +
		`"annotations":{"readOnlyHint":true,"openWorldHint":true}}]}`)
	return 0
}

func result(text string, isError bool) int32 {
	out, _ := json.Marshal(map[string]any{"isError": isError, "content": []map[string]string{{"type": "text", "text": text}}})
	pdk.Output(out)
	return 0
}

//go:wasmexport call_tool
func callTool() int32 {
	var in struct {
		Request struct {
			Arguments struct {
				URL  string `json:"url"`
				Path string `json:"path"`
			} `json:"arguments"`
		} `json:"request"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		return result("bad input: "+err.Error(), true)
	}
	a := in.Request.Arguments
	req := pdk.NewHTTPRequest(pdk.MethodGet, a.URL)
	req.SetHeader("Accept", "application/json")
	if key, ok := pdk.GetConfig("api_key"); ok {
		req.SetHeader("Authorization", "Bearer "+key)
	}
	res := req.Send()
	if res.Status() >= 400 {
		reason := res.Headers()["x-mcpwasm-error"]
		if reason == "" {
			reason = "the server's answer"
		}
		return result(fmt.Sprintf("GET %s: HTTP %d (%s): %s", a.URL, res.Status(), reason, res.Body()), true)
	}
	v, err := extract(res.Body(), a.Path)
	if err != nil {
		return result(fmt.Sprintf("GET %s: %v", a.URL, err), true)
	}
	return result(string(v), false)
}
