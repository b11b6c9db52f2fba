package prompts

import (
	"encoding/json"
	"errors"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// get runs one get_prompt export: the GetPromptResult to output, or the
// error that fails the export (its message reaches the client).
func get(input []byte) ([]byte, error) {
	guest.StartCall()
	var env struct {
		Request struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"request"`
		Context mcpwasm.Context `json:"context"`
	}
	if err := json.Unmarshal(input, &env); err != nil {
		return nil, errors.New("mcpwasm: get_prompt input is not a {request, context} object with string arguments: " + err.Error())
	}
	name := env.Request.Name
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
	args := env.Request.Arguments
	if args == nil {
		args = map[string]string{}
	}
	for _, a := range d.args {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, errors.New(a.Name + " is required")
		}
	}
	r := &Request{Name: name, Arguments: args, Host: mcpwasm.Host{Context: env.Context}}
	var res *Result
	var err error
	if perr := guest.Guard("the prompt "+guest.Quote(name), func() { res, err = d.handler(r) }); perr != nil {
		return nil, perr
	}
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
