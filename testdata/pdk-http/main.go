// Command pdk-http is a hyper-mcp v2 style plugin built with the plain
// Extism Go PDK (github.com/extism/go-pdk) and standard Go. Its fetch tool
// makes HTTP requests with the PDK's HTTPRequest.Send, the way plugins
// written for hyper-mcp and mcp.run do: mcpwasm must serve them unchanged
// through its guarded client, and its refusals must reach this code as
// error responses it can report.
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/extism/go-pdk"
)

//go:wasmexport list_tools
func listTools() int32 {
	pdk.OutputString(`{"tools":[{"name":"fetch","description":"Makes HTTP requests and reports the last answer.",` +
		`"inputSchema":{"type":"object","properties":{"url":{"type":"string"},"method":{"type":"string"},` +
		`"headers":{"type":"object"},"body":{"type":"string"},"repeat":{"type":"integer"},"auth_config":{"type":"string"}},"required":["url"]}}]}`)
	return 0
}

var methods = map[string]pdk.HTTPMethod{"": pdk.MethodGet, "GET": pdk.MethodGet, "HEAD": pdk.MethodHead,
	"POST": pdk.MethodPost, "PUT": pdk.MethodPut, "PATCH": pdk.MethodPatch, "DELETE": pdk.MethodDelete,
	"OPTIONS": pdk.MethodOptions, "TRACE": pdk.MethodTrace}

//go:wasmexport call_tool
func callTool() int32 {
	var in struct {
		Request struct {
			Name      string `json:"name"`
			Arguments struct {
				URL     string            `json:"url"`
				Method  string            `json:"method"`
				Headers map[string]string `json:"headers"`
				Body    string            `json:"body"`
				Repeat  int               `json:"repeat"`
				// AuthConfig names a config key (an API key) sent as a
				// bearer token, as plugins for real APIs do.
				AuthConfig string `json:"auth_config"`
			} `json:"arguments"`
		} `json:"request"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.SetError(err)
		return 1
	}
	a := in.Request.Arguments
	m, ok := methods[strings.ToUpper(a.Method)]
	if !ok {
		pdk.SetErrorString("unknown method " + a.Method)
		return 1
	}
	var res pdk.HTTPResponse
	for i := 0; i < max(1, a.Repeat); i++ {
		req := pdk.NewHTTPRequest(m, a.URL)
		for k, v := range a.Headers {
			req.SetHeader(k, v)
		}
		if a.AuthConfig != "" {
			if key, ok := pdk.GetConfig(a.AuthConfig); ok {
				req.SetHeader("Authorization", "Bearer "+key)
			}
		}
		if a.Body != "" {
			req.SetBody([]byte(a.Body))
		}
		res = req.Send()
	}
	// Ordinary plugin code: a status of 400 or more is an error to report.
	if res.Status() >= 400 {
		text := fmt.Sprintf("HTTP %d (%s): %s", res.Status(), res.Headers()["x-mcpwasm-error"], res.Body())
		out, _ := json.Marshal(map[string]any{"isError": true, "content": []map[string]string{{"type": "text", "text": text}}})
		pdk.Output(out)
		return 0
	}
	report, _ := json.Marshal(map[string]any{"status": res.Status(), "headers": res.Headers(), "body": string(res.Body())})
	out, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(report)}}})
	pdk.Output(out)
	return 0
}

func main() {}
