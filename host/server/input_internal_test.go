package server

import (
	"strings"
	"testing"
)

// TestParseInputRequests: request_input payloads a guest gets wrong are
// refused with a sentence naming the key, and the host's own keys cannot be
// taken.
func TestParseInputRequests(t *testing.T) {
	for payload, want := range map[string]string{
		`{}`:                   "at least one request",
		`{"inputRequests":{}}`: "at least one request",
		`not json`:             "at least one request",
		`{"inputRequests":{"a b":{"method":"roots/list"}}}`:                  `key "a b"`,
		`{"inputRequests":{"mcpwasm-roots":{"method":"roots/list"}}}`:        "reserved",
		`{"inputRequests":{"create_message-0":{"method":"roots/list"}}}`:     "reserved",
		`{"inputRequests":{"x":{"method":"tools/call","params":{}}}}`:        `method "tools/call"`,
		`{"inputRequests":{"x":null}}`:                                       `"x": want`,
		`{"inputRequests":{"x":{"method":"elicitation/create","params":7}}}`: "invalid request",
	} {
		if _, err := parseInputRequests([]byte(payload)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", payload, err, want)
		}
	}
	many := `{"inputRequests":{`
	for i := range maxInputRequests + 1 {
		if i > 0 {
			many += ","
		}
		many += `"k` + strings.Repeat("x", i) + `":{"method":"roots/list"}`
	}
	if _, err := parseInputRequests([]byte(many + "}}")); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d requests: %v", maxInputRequests+1, err)
	}
	reqs, err := parseInputRequests([]byte(`{"inputRequests":{"r":{"method":"roots/list"},"e.1":{"method":"elicitation/create","params":{"message":"hi"}}}}`))
	if err != nil || len(reqs) != 2 || requestMethod(reqs["r"]) != methodListRoots || requestMethod(reqs["e.1"]) != methodElicit {
		t.Fatalf("a good batch: %v %v", reqs, err)
	}
}
