// Command mcpwasm serves WebAssembly plugins as MCP tools, each call in a
// fresh sandbox.
//
//	mcpwasm serve   [flags] [PLUGIN.wasm | DIR]...   serve over stdio (default) or --http
//	mcpwasm call    [flags] PLUGIN.wasm TOOL [JSON]  run one tool, print the result
//	mcpwasm inspect [--json] PLUGIN.wasm             show a plugin's imports, exports and tools
//	mcpwasm validate [--config FILE] [PLUGIN.wasm | DIR]...  check a config and load its plugins, without serving
//	mcpwasm pull    [--config FILE] [--update] [SOURCE]...  fetch oci:// and https:// plugins into the store
//	mcpwasm trust   [--diff] [--config FILE] [PLUGIN]...  approve the declarations serve holds (mcpwasm.lock)
//	mcpwasm new     rust|go|tinygo|as DIR            write a plugin folder to start from
//
// This package holds the flags and one call per command into
// host/lifecycle, which wires the runtime; the work is in host/.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpwasm/mcpwasm/host/confine"
	workers "github.com/mcpwasm/mcpwasm/host/isolate" // "isolate" is a test helper's name here
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `mcpwasm — MCP tools as sandboxed WebAssembly plugins

Usage:
  mcpwasm serve   [flags] [PLUGIN.wasm | DIR]...   serve plugins (stdio by default, --http ADDR for Streamable HTTP)
  mcpwasm call    [flags] PLUGIN.wasm TOOL [JSON]  call one tool without an MCP client; exit 1 on isError
  mcpwasm inspect [--json] PLUGIN.wasm             show imports, exports, ABI version and tools
  mcpwasm validate [--config FILE] [PLUGIN.wasm | DIR]...
                                                   check a config and load its plugins without serving; exit 1 on a problem
  mcpwasm pull    [--config FILE] [--update] [oci://… | https://…]...
                                                   fetch registry and https plugins into the store, pin tags in mcpwasm.lock
  mcpwasm policy test [--config FILE] --principal NAME --tool T [--args JSON]
                                                   decide one request by the policies, without a server; exit 1 when denied
  mcpwasm policy schema [--config FILE] [PLUGIN.wasm | DIR]...
                                                   print the Cedar schema generated for the plugins
  mcpwasm trust   [--diff] [--config FILE] [PLUGIN.wasm | DIR]...
                                                   approve the declarations serve holds (changed or new since
                                                   approved), recorded in mcpwasm.lock; --diff shows them
  mcpwasm new     rust|go|tinygo|as DIR            write a ready-to-build plugin folder (one hello tool)
  mcpwasm version

With no plugins and no --config, serve runs the built-in example plugins.
A plugin is a .wasm file, a folder of them, oci://REGISTRY/REPO:TAG (or
@sha256:…), or https://…/plugin.wasm with its sha256.
Run "mcpwasm <command> -h" for a command's flags.
`

func main() {
	confine.ChildMain() // the ptrace target of validate --confine waits here
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return cmdServe(args[1:], stderr)
	case "call":
		return cmdCall(args[1:], stdout, stderr)
	case "inspect":
		return cmdInspect(args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "new":
		return cmdNew(args[1:], stdout, stderr)
	case "policy":
		return cmdPolicy(args[1:], stdout, stderr)
	case "pull":
		return cmdPull(args[1:], stderr)
	case "trust":
		return cmdTrust(args[1:], stdout, stderr)
	case workers.Subcommand: // hidden: a plugin's worker, started by serve
		return workers.WorkerMain()
	case workers.LauncherSubcommand: // hidden: starts workers for a confined serve
		return workers.LauncherMain()
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "mcpwasm", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "mcpwasm: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// parseArgs parses flags anywhere among the positional arguments, so
// "serve a.wasm --timeout 1s" works like "serve --timeout 1s a.wasm".
// Everything after "--" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
