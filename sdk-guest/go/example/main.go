// Command example is the smallest useful mcpwasm plugin: one tool, upper.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o upper.wasm .
//	mcpwasm call upper.wasm upper '{"text":"hello"}'
package main

import (
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

func init() {
	mcpwasm.Tool("upper", "Upper-case a string",
		`{"type":"object","properties":{"text":{"type":"string","description":"the text to upper-case"}},"required":["text"]}`,
		func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			return mcpwasm.Text(strings.ToUpper(a.Text)), nil
		})
}

func main() {}
