// Command pdk-go is a hyper-mcp v2 style plugin built with the plain Extism
// Go PDK (github.com/extism/go-pdk) and standard Go, not with mcpwasm's SDK:
// it exports list_tools and call_tool, reads the {"request", "context"}
// envelope and answers MCP results. mcpwasm must load and call it unchanged.
package main

import (
	"encoding/json"

	"github.com/extism/go-pdk"
)

//go:wasmexport list_tools
func listTools() int32 {
	pdk.OutputString(`{"tools":[{"name":"reverse","description":"Reverses text, rune by rune.",` +
		`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`)
	return 0
}

//go:wasmexport call_tool
func callTool() int32 {
	var in struct {
		Request struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"request"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.SetError(err)
		return 1
	}
	if in.Request.Name != "reverse" {
		pdk.SetErrorString("unknown tool " + in.Request.Name)
		return 1
	}
	r := []rune(in.Request.Arguments.Text)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	out, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(r)}}})
	pdk.Output(out)
	return 0
}

func main() {}
