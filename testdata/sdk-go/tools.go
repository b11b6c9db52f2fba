package main

import (
	"errors"
	"strconv"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

const anyObject = `{"type":"object"}`

func registerTools() {
	mcpwasm.Tool("greet", "Greet someone by name", `{"type":"object","properties":{"name":{"type":"string"}}}`,
		func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
			var a struct{ Name string }
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			if a.Name == "" {
				return nil, errors.New("name is required")
			}
			return mcpwasm.Text("Hello, " + a.Name + "!"), nil
		}).Title("Greeter")

	mcpwasm.Tool("report", "Report progress, log, and describe the plugin",
		`{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}`, report)

	mcpwasm.Tool("pixel", "Answer a 4-byte image", anyObject, func(*mcpwasm.Call) (*mcpwasm.Result, error) {
		return mcpwasm.Image([]byte{0x89, 0x50, 0x4E, 0x47}, "image/png"), nil
	}).Annotations(`{"readOnlyHint":true}`)

	mcpwasm.Tool("ask", "Ask the client's model", anyObject, ask)
	mcpwasm.Tool("elicit", "Ask the user for a name", anyObject, elicit)

	mcpwasm.Tool("roots", "List the client's roots", anyObject, func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
		roots, err := c.ListRoots()
		if err != nil {
			return failed("roots", err)
		}
		return mcpwasm.Text(joinURIs(roots)), nil
	})

	mcpwasm.Tool("touch", "Say a resource changed",
		`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`,
		func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
			var a struct {
				URI string `json:"uri"`
			}
			if err := c.Bind(&a); err != nil {
				return nil, err
			}
			c.NotifyResourceUpdated(a.URI)
			return mcpwasm.Text("touched " + a.URI), nil
		})

	mcpwasm.Tool("changed", "Say every list changed", anyObject, func(c *mcpwasm.Call) (*mcpwasm.Result, error) {
		c.NotifyToolListChanged()
		c.NotifyResourceListChanged()
		c.NotifyPromptListChanged()
		c.NotifyURLElicitationCompleted("el-parity")
		return mcpwasm.Text("changed"), nil
	})

	mcpwasm.Tool("crash", "Panic on purpose", anyObject, func(*mcpwasm.Call) (*mcpwasm.Result, error) {
		panic("crash on purpose")
	})
}

func report(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Steps int `json:"steps"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	for i := 1; i <= a.Steps; i++ {
		c.Progress(float64(i), float64(a.Steps), "step "+strconv.Itoa(i))
	}
	c.LogAs(mcpwasm.LevelInfo, "parity", map[string]int{"steps": a.Steps})
	var greeting *string
	if g, ok := mcpwasm.Config("greeting"); ok {
		greeting = &g
	}
	return mcpwasm.JSON(struct {
		Lang     string  `json:"lang"`
		Steps    int     `json:"steps"`
		Plugin   string  `json:"plugin"`
		Greeting *string `json:"greeting"`
	}{lang, a.Steps, c.Context.Plugin, greeting}), nil
}

func ask(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	params := map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]string{"type": "text", "text": "ping"}}},
		"maxTokens": 16,
	}
	var answer struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := c.CreateMessage(params, &answer); err != nil {
		return failed("sampling", err)
	}
	return mcpwasm.Text("model said: " + answer.Content.Text), nil
}

func elicit(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	params := map[string]any{
		"message": "Your name?",
		"requestedSchema": map[string]any{"type": "object",
			"properties": map[string]any{"name": map[string]string{"type": "string"}}},
	}
	var answer struct {
		Action  string `json:"action"`
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	if err := c.Elicit(params, &answer); err != nil {
		return failed("elicitation", err)
	}
	return mcpwasm.Text(answer.Action + " " + answer.Content.Name), nil
}

// unavailable reports whether err is the host saying it could not make the
// request. A type assertion, not errors.As: TinyGo 0.40's errors.As panics
// for a concrete target type (its reflect lacks AssignableTo with an
// interface), and the SDK returns *HostError unwrapped.
// failed answers a client request's error: an isError result "<what>
// unavailable: ..." when the host could not make the request (a
// *mcpwasm.HostError: the client lacks the capability), else err itself.
func failed(what string, err error) (*mcpwasm.Result, error) {
	if _, ok := err.(*mcpwasm.HostError); ok {
		return mcpwasm.Error(what + " unavailable: " + err.Error()), nil
	}
	return nil, err
}
