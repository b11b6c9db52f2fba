package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

type prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
}

type promptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

type promptMessage struct {
	Role    string  `json:"role"`
	Content content `json:"content"`
}

type getPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []promptMessage `json:"messages"`
}

var prompts = []prompt{
	{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
	{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []promptArgument{
			{"arg1", "First test argument", true},
			{"arg2", "Second test argument", true},
		}},
	{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
		Arguments: []promptArgument{{"resourceUri", "URI of the resource to embed", true}}},
	{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
}

func getPrompt(req json.RawMessage, _ callContext) (any, error) {
	var params struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := decode(req, &params); err != nil {
		return nil, err
	}
	if params.Name == "test_input_required_result_prompt" {
		return inputPrompt()
	}
	for _, p := range prompts {
		if p.Name != params.Name {
			continue
		}
		for _, a := range p.Arguments {
			if a.Required && params.Arguments[a.Name] == "" {
				return nil, fmt.Errorf("prompt %s: missing required argument %q", p.Name, a.Name)
			}
		}
		return promptResult(p.Name, params.Arguments), nil
	}
	return nil, fmt.Errorf("prompt not found: %s", params.Name)
}

func promptResult(name string, args map[string]string) getPromptResult {
	user := func(c content) promptMessage { return promptMessage{"user", c} }
	switch name {
	case "test_prompt_with_arguments":
		return getPromptResult{"A prompt with arguments", []promptMessage{
			user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]))),
		}}
	case "test_prompt_with_embedded_resource":
		return getPromptResult{"A prompt with an embedded resource", []promptMessage{
			user(embedded(args["resourceUri"], "text/plain", "Embedded resource content for testing.")),
			user(text("Please process the embedded resource above.")),
		}}
	case "test_prompt_with_image":
		return getPromptResult{"A prompt with an image", []promptMessage{
			user(image(pngBase64, "image/png")),
			user(text("Please analyze the image above.")),
		}}
	default: // test_simple_prompt
		return getPromptResult{"A simple test prompt", []promptMessage{
			user(text("This is a simple prompt for testing.")),
		}}
	}
}

// completions are the candidate values offered for completion/complete,
// by reference ("ref/prompt" name or "ref/resource" URI template) and
// argument name.
var completions = map[string]map[string][]string{
	"ref/prompt test_prompt_with_arguments": {
		"arg1": {"alpha", "apple", "apricot", "banana", "cherry"},
		"arg2": {"one", "two", "three", "ten"},
	},
	"ref/resource " + templatePrefix + "{id}" + templateSuffix: {
		"id": {"1", "2", "3", "42", "123"},
	},
}

func complete(req json.RawMessage, _ callContext) (any, error) {
	var params struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := decode(req, &params); err != nil {
		return nil, err
	}
	key := params.Ref.Type + " " + params.Ref.Name
	if params.Ref.Type == "ref/resource" {
		key = params.Ref.Type + " " + params.Ref.URI
	}
	prefix := strings.ToLower(params.Argument.Value)
	values := []string{}
	for _, v := range completions[key][params.Argument.Name] {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			values = append(values, v)
		}
	}
	sort.Strings(values)
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	return struct {
		Completion completion `json:"completion"`
	}{completion{values, len(values), false}}, nil
}
