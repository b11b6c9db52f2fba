package mcptest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer is an http.RoundTripper that sends Token as a bearer token on
// every request.
type Bearer struct{ Token string }

// RoundTrip is http.RoundTripper.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	return http.DefaultTransport.RoundTrip(r)
}

// Dial connects go-sdk's client to the Streamable HTTP endpoint url,
// sending token, within 30 seconds.
func Dial(url, token string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: Bearer{token}}}, nil)
}

// Connect is Dial in a test: it fails t if the client cannot connect and
// closes the session when t ends.
func Connect(t testing.TB, url, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := Dial(url, token)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Post is a POST of a JSON-RPC message to a Streamable HTTP endpoint as a
// client sends it: Content-Type JSON, Accept JSON and an event stream.
func Post(ctx context.Context, url string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req, nil
}

// Do sends req with http.DefaultClient, failing t when no answer comes; the
// answer's body is closed when t ends if the caller has not closed it.
func Do(t testing.TB, req *http.Request) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
