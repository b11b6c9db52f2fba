package prompts

import (
	"errors"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// get runs one get_prompt export: the GetPromptResult to output, or the
// error that fails the export (its message reaches the client).
func get(input []byte) ([]byte, error) {
	guest.StartCall()
	type request struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	req, ctx, err := guest.Decode[request, mcpwasm.Context]("get_prompt", " with string arguments", input)
	if err != nil {
		return nil, err
	}
	name := req.Name
	var d *Def
	for _, p := range prompts {
		if p.name == name {
			d = p
			break
		}
	}
	if d == nil {
		return nil, errors.New("prompt " + guest.Quote(name) + " not found")
	}
	args := req.Arguments
	if args == nil {
		args = map[string]string{}
	}
	for _, a := range d.args {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, errors.New(a.Name + " is required")
		}
	}
	r := &Request{Name: name, Arguments: args, Host: mcpwasm.Host{Context: ctx}}
	res, err := guest.Handle("the prompt "+guest.Quote(name), func() (*Result, error) { return d.handler(r) })
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("the handler of the prompt " + guest.Quote(name) + " returned no result")
	}
	if res.Messages == nil {
		res.Messages = []Message{}
	}
	out, err := guest.Marshal(res)
	if err != nil {
		return nil, errors.New("the result of the prompt " + guest.Quote(name) + " cannot be encoded as JSON: " + err.Error())
	}
	return out, nil
}
