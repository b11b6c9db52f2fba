//go:build !wasip1

package mcpwasm_test

import (
	"fmt"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

func ExampleTool() {
	mcpwasm.Tool("shout", "Upper-case a string and add an exclamation mark",
		`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			if a.Text == "" {
				return nil, fmt.Errorf("text is empty; pass the words to shout")
			}
			return mcpwasm.Text(strings.ToUpper(a.Text) + "!"), nil
		})

	// In a plugin the host calls the tool; in a test, Invoke does.
	fmt.Println(string(mcpwasm.Invoke("shout", `{"text":"hello"}`).Output))
	fmt.Println(string(mcpwasm.Invoke("shout", `{"text":""}`).Output))
	// Output:
	// {"content":[{"type":"text","text":"HELLO!"}]}
	// {"content":[{"type":"text","text":"text is empty; pass the words to shout"}],"isError":true}
}

func ExampleJSON() {
	type stats struct {
		Words int `json:"words"`
		Lines int `json:"lines"`
	}
	r := mcpwasm.JSON(stats{Words: 3, Lines: 1})
	fmt.Println(r.Content[0].Text, r.StructuredContent != nil)
	// Output: {"words":3,"lines":1} true
}
