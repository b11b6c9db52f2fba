// Package mcpwasm writes mcpwasm plugins (ABI v1, see abi/ABI.md in the
// mcpwasm repository) in Go, for standard Go (GOOS=wasip1, c-shared) and
// TinyGo (wasip1, c-shared).
//
// A plugin registers its tools from an init function and has an empty main:
//
//	func init() {
//		mcpwasm.Tool("upper", "Upper-case a string",
//			`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
//			func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
//				var a struct{ Text string `json:"text"` }
//				if err := c.Bind(&a); err != nil {
//					return nil, err
//				}
//				return mcpwasm.Text(strings.ToUpper(a.Text)), nil
//			})
//	}
//
//	func main() {}
//
// The package itself provides the module's exports: list_tools, call_tool and
// mcpwasm_abi_version. It imports the Extism kernel (extism:host/env) and
// mcpwasm's host functions (extism:host/user) directly and depends on nothing
// but the standard library.
//
// Resources and resource templates, prompts, and completion live in the
// packages resources, prompts and completion, each with the exports of its
// feature. A plugin that does not import them does not export them, so the
// host does not advertise capabilities the plugin lacks.
//
// Every handler's request embeds [Host]: the call's [Context] and the host
// functions (progress, logging, sampling, elicitation, roots, and the
// resource-updated and list-changed notifications). Only the host functions
// a plugin calls become imports of its module.
//
// A handler's error becomes a CallToolResult with isError set and the error's
// text as content, which is how ABI.md prefers tools to fail. Under standard Go
// a panic in a handler is recovered into such a result as well. TinyGo cannot
// recover panics on WebAssembly: the module traps, and the SDK has set an
// error message beforehand so the host reports the call as a panic naming the
// tool (the panic text itself goes to the guest's stdout, which the host keeps
// in its debug log).
//
// Off wasip1 (go test on the development machine) the kernel is an in-process
// stand-in, and [Invoke] and [ListTools] run tools the way the host would.
package mcpwasm

// ABIVersion is the mcpwasm plugin ABI version this package implements. The
// mcpwasm_abi_version export returns it.
const ABIVersion = 1
