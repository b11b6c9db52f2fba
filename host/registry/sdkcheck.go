package registry

import (
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's Server.AddTool, AddResource and AddResourceTemplate panic on a
// declaration they refuse (an input schema that is not an object, x-mcp-header
// annotations on a non-primitive property or naming an invalid header, a
// resource URI url.Parse rejects, an invalid URI template). Its checks are
// unexported, so the registry runs them by adding each declaration to a
// scratch server with no sessions: the rules are go-sdk's own, whatever its
// version, and a refusal becomes a load error instead of a crash of the
// whole process.

// sdkCheck tries every declaration of e on a scratch go-sdk server and
// returns the first refusal, naming the declaration.
func sdkCheck(e *Entry) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcpwasm-check"},
		&mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	for _, t := range e.Tools {
		if err := Guard(func() { srv.AddTool(t.Def, nil) }); err != nil {
			return fmt.Errorf("tool %q: refused by go-sdk: %v", t.Declared, err)
		}
	}
	for _, r := range e.Resources {
		if err := Guard(func() { srv.AddResource(r.Def, nil) }); err != nil {
			return fmt.Errorf("resource %q: refused by go-sdk: %v", r.Def.URI, err)
		}
	}
	for _, t := range e.Templates {
		if err := Guard(func() { srv.AddResourceTemplate(t.Def, nil) }); err != nil {
			return fmt.Errorf("resource template %q: refused by go-sdk: %v", t.Def.URITemplate, err)
		}
	}
	for _, p := range e.Prompts {
		if err := Guard(func() { srv.AddPrompt(p.Def, nil) }); err != nil {
			return fmt.Errorf("prompt %q: refused by go-sdk: %v", p.Declared, err)
		}
	}
	return nil
}

// Guard runs f and turns a panic into an error. The server wraps go-sdk's
// Add* calls in it as a backstop behind the load-time check.
func Guard(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	f()
	return nil
}
