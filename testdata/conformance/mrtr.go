package main

// The 2026-07-28 fixtures (conformance 0.2.0-alpha): the tools and the
// prompt of the input-required-result-* scenarios (SEP-2322, multi
// round-trip requests) and the diagnostic tools of server-stateless
// (SEP-2575). They ask the client through request_input, which takes
// several requests at once under keys the guest chooses; the host answers
// them by round trip in 2026-07-28 and by server-to-client requests before.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

//go:wasmimport extism:host/user request_input
func hostRequestInput(h uint64) uint64

//go:wasmimport extism:host/user notify_tool_list_changed
func hostNotifyToolListChanged()

//go:wasmimport extism:host/user notify_prompt_list_changed
func hostNotifyPromptListChanged()

// inputRequest is one entry of request_input's inputRequests.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

func elicitRequest(message, schema string) inputRequest {
	return inputRequest{"elicitation/create", map[string]any{
		"message": message, "requestedSchema": json.RawMessage(schema)}}
}

func samplingRequest(prompt string, maxTokens int) inputRequest {
	return inputRequest{"sampling/createMessage", map[string]any{
		"messages":  []map[string]any{{"role": "user", "content": text(prompt)}},
		"maxTokens": maxTokens}}
}

var rootsRequest = inputRequest{"roots/list", map[string]any{}}

// askClient sends a request_input and returns the answers by key, or the
// host's error.
func askClient(reqs map[string]inputRequest) (map[string]json.RawMessage, error) {
	payload, _ := json.Marshal(map[string]any{"inputRequests": reqs})
	answer := request(hostRequestInput, payload)
	if msg, failed := hostError(answer); failed {
		return nil, fmt.Errorf("%s", msg)
	}
	var res struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(answer, &res); err != nil {
		return nil, err
	}
	return res.InputResponses, nil
}

// elicited returns an accepted elicitation's content field, as a string.
func elicited(answer json.RawMessage, field string) string {
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(answer, &r) != nil || r.Action != "accept" {
		return "(" + r.Action + ")"
	}
	return fmt.Sprint(r.Content[field])
}

// sampled returns a sampling answer's text.
func sampled(answer json.RawMessage) string {
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(answer, &r) != nil {
		return "(no answer)"
	}
	return firstText(r.Content)
}

// rootURIs returns a roots/list answer's URIs.
func rootURIs(answer json.RawMessage) []string {
	var r struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	json.Unmarshal(answer, &r)
	uris := []string{}
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return uris
}

const (
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	colorSchema   = `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`
	contextSchema = `{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`
)

// ask runs one round of requests and hands the answers to done.
func ask(reqs map[string]inputRequest, done func(map[string]json.RawMessage) callToolResult) callToolResult {
	answers, err := askClient(reqs)
	if err != nil {
		return toolError("the client could not be asked: " + err.Error())
	}
	return done(answers)
}

func init() {
	tools = append(tools, mrtrTools...)
	prompts = append(prompts, prompt{Name: "test_input_required_result_prompt", Title: "Input Required Prompt",
		Description: "A prompt that asks the client for context (SEP-2322)"})
}

var mrtrTools = []tool{
	{"test_input_required_result_elicitation", "MRTR (SEP-2322): asks for the caller's name by elicitation", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"user_name": elicitRequest("What is your name?", nameSchema)},
				func(a map[string]json.RawMessage) callToolResult {
					return ok(text("Hello, " + elicited(a["user_name"], "name") + "!"))
				})
		}},
	{"test_input_required_result_sampling", "MRTR (SEP-2322): asks the client's model a question", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"capital_question": samplingRequest("What is the capital of France?", 100)},
				func(a map[string]json.RawMessage) callToolResult {
					return ok(text("The model says: " + sampled(a["capital_question"])))
				})
		}},
	{"test_input_required_result_list_roots", "MRTR (SEP-2322): asks for the client's roots", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"client_roots": rootsRequest},
				func(a map[string]json.RawMessage) callToolResult {
					return ok(text("Client roots: " + strings.Join(rootURIs(a["client_roots"]), ", ")))
				})
		}},
	{"test_input_required_result_request_state", "MRTR (SEP-2322): a confirmation whose answer comes back with the signed requestState", json.RawMessage(noArgs),
		confirm},
	{"test_input_required_result_tampered_state", "MRTR (SEP-2322): a confirmation; a retry with an altered requestState is refused", json.RawMessage(noArgs),
		confirm},
	{"test_input_required_result_multiple_inputs", "MRTR (SEP-2322): elicitation, sampling and roots in one round", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{
				"user_name":    elicitRequest("What is your name?", nameSchema),
				"greeting":     samplingRequest("Generate a greeting", 50),
				"client_roots": rootsRequest,
			}, func(a map[string]json.RawMessage) callToolResult {
				return ok(text(fmt.Sprintf("name=%s greeting=%s roots=%s", elicited(a["user_name"], "name"),
					sampled(a["greeting"]), strings.Join(rootURIs(a["client_roots"]), ","))))
			})
		}},
	{"test_input_required_result_multi_round", "MRTR (SEP-2322): two rounds of elicitation", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"step1": elicitRequest("Step 1: What is your name?", nameSchema)},
				func(a1 map[string]json.RawMessage) callToolResult {
					return ask(map[string]inputRequest{"step2": elicitRequest("Step 2: What is your favorite color?", colorSchema)},
						func(a2 map[string]json.RawMessage) callToolResult {
							return ok(text(fmt.Sprintf("%s likes %s", elicited(a1["step1"], "name"), elicited(a2["step2"], "color"))))
						})
				})
		}},
	{"test_input_required_result_capabilities", "MRTR (SEP-2322): asks only for what the client declared it can answer", json.RawMessage(noArgs),
		runCapabilities},
	{"test_missing_capability", "Requires the client's sampling capability (SEP-2575: MissingRequiredClientCapabilityError without it)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			payload, _ := json.Marshal(samplingRequest("Say hello", 20).Params)
			answer := request(hostCreateMessage, payload)
			if msg, failed := hostError(answer); failed {
				return toolError("sampling is required: " + msg)
			}
			return ok(text("Sampled: " + sampled(answer)))
		}},
	{"test_streaming_elicitation", "Asks for input mid-call: 2026-07-28 clients get an input-required result, never a request on the stream (SEP-2575)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			return ask(map[string]inputRequest{"stream_check": elicitRequest("Continue?", confirmSchema)},
				func(a map[string]json.RawMessage) callToolResult {
					return ok(text("Answered: " + elicited(a["stream_check"], "ok")))
				})
		}},
	{"test_logging_tool", "Logs one message; the host sends it only to a client that asked for logs (SEP-2575)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			payload, _ := json.Marshal(map[string]any{"level": "info", "data": "test_logging_tool executed"})
			notify(hostNotifyLoggingMessage, payload)
			return ok(text("Log attempted"))
		}},
	{"test_trigger_tool_change", "Says this plugin's tool list changed (the host re-reads it and tells subscribed clients)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			hostNotifyToolListChanged()
			return ok(text("tools list change announced"))
		}},
	{"test_trigger_prompt_change", "Says this plugin's prompt list changed (the host re-reads it and tells subscribed clients)", json.RawMessage(noArgs),
		func(json.RawMessage, callContext) callToolResult {
			hostNotifyPromptListChanged()
			return ok(text("prompts list change announced"))
		}},
}

// confirm asks for a confirmation. The host hands the guest an answer only
// when it came with the requestState the host signed for this call, so an
// answer here means the state was checked: "state-ok".
func confirm(json.RawMessage, callContext) callToolResult {
	return ask(map[string]inputRequest{"confirm": elicitRequest("Please confirm", confirmSchema)},
		func(a map[string]json.RawMessage) callToolResult {
			return ok(text("state-ok: confirmed=" + elicited(a["confirm"], "ok")))
		})
}

// runCapabilities asks for sampling and elicitation, each only if the
// client declared it (context.client_capabilities).
func runCapabilities(_ json.RawMessage, ctx callContext) callToolResult {
	reqs := map[string]inputRequest{}
	if ctx.ClientCapabilities["sampling"] != nil {
		reqs["capability_sampling"] = samplingRequest("Say something", 20)
	}
	if ctx.ClientCapabilities["elicitation"] != nil {
		reqs["capability_elicitation"] = elicitRequest("Say something", nameSchema)
	}
	if len(reqs) == 0 {
		return ok(text("The client declared neither sampling nor elicitation; nothing to ask"))
	}
	return ask(reqs, func(a map[string]json.RawMessage) callToolResult {
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return ok(text("Answered: " + strings.Join(keys, ", ")))
	})
}

// inputPrompt is test_input_required_result_prompt: it asks the client for
// the context to use.
func inputPrompt() (any, error) {
	answers, err := askClient(map[string]inputRequest{
		"user_context": elicitRequest("What context should the prompt use?", contextSchema)})
	if err != nil {
		return nil, fmt.Errorf("the client could not be asked: %v", err)
	}
	return getPromptResult{"A prompt built from the client's answer", []promptMessage{
		{"user", text("Use this context: " + elicited(answers["user_context"], "context"))},
	}}, nil
}
