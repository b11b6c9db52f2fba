package transport

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestWithCodeDocumented: every error WithCode gives a code to gets one
// JSON-RPC or MCP documents: never 0, and none of the codes JSON-RPC
// reserves (-32768 to -32000) but defines nothing for (cancellation was
// LSP's -32800).
func TestWithCodeDocumented(t *testing.T) {
	for _, err := range []error{
		errors.New("a handler's plain error"),
		context.Canceled,
		fmt.Errorf("wrapped: %w", context.Canceled),
		errors.New(`method "tools/list" is invalid during session initialization`),
		errors.New(`duplicate "initialize" received`),
		&jsonrpc.Error{Code: 0, Message: "go-sdk's own, without a code"},
	} {
		var we *jsonrpc.Error
		if !errors.As(WithCode(err), &we) {
			t.Fatalf("WithCode(%v) is not a *jsonrpc.Error", err)
		}
		c := we.Code
		documented := c == -32700 || c == -32600 || c == -32601 || c == -32602 || c == -32603 ||
			(c <= -32000 && c >= -32019) || c == -32002 || c == -32020 || c == -32021 || c == -32022 || c == -32042 ||
			(c != 0 && (c > -32000 || c < -32768))
		if !documented {
			t.Errorf("WithCode(%v) = code %d: not a JSON-RPC or MCP code", err, c)
		}
	}
}
