//go:build !wasip1

package completion_test

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/completion"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
)

func ExampleForPrompt() {
	prompts.Prompt("translate", "Translate a text", func(r *prompts.Request) (*prompts.Result, error) {
		return prompts.Reply("", prompts.UserText("Translate into "+r.Arguments["to"]+":\n"+r.Arguments["text"])), nil
	}).RequiredArgument("text", "").RequiredArgument("to", "the target language")
	completion.ForPrompt("translate", "to", completion.Prefix("German", "Greek", "French"))

	// In a plugin the host asks for completions; in a test, Invoke does.
	ref := completion.Ref{Type: completion.RefPrompt, Name: "translate"}
	fmt.Println(completion.Invoke(ref, "to", "G").Values)
	fmt.Println(string(completion.Invoke(ref, "text", "G").Output))
	// Output:
	// [German Greek]
	// {"completion":{"values":[]}}
}
