//go:build !wasip1

package prompts_test

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
)

func ExamplePrompt() {
	prompts.Prompt("review", "Review some code", func(r *prompts.Request) (*prompts.Result, error) {
		lang := r.Arguments["language"]
		if lang == "" {
			lang = "code"
		}
		return prompts.Reply("Code review", prompts.UserText("Review this "+lang+":\n"+r.Arguments["code"])), nil
	}).RequiredArgument("code", "the code to review").Argument("language", "its language")

	// In a plugin the host gets the prompt; in a test, Invoke does.
	inv := prompts.Invoke("review", map[string]string{"code": "x := 1", "language": "go"})
	fmt.Printf("%s: %q\n", inv.Result.Description, inv.Text())
	fmt.Println(prompts.Invoke("review", nil).Err)
	// Output:
	// Code review: "Review this go:\nx := 1"
	// code is required
}
