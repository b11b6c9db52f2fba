// Command tokenproxy is a test aid: a loopback reverse proxy that adds
// "Authorization: Bearer TOKEN" to every request, so that MCP clients that
// cannot send a token (the conformance runner's server mode) can be pointed
// at an mcpwasm that requires one. It streams responses (SSE) as they come.
//
//	tokenproxy -listen 127.0.0.1:39174 -target http://127.0.0.1:39173 -token-file FILE
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	target := flag.String("target", "", "base URL of the server")
	tokenFile := flag.String("token-file", "", "file holding the bearer token (first line)")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		log.Fatalf("tokenproxy: -target %q: want a base URL", *target)
	}
	b, err := os.ReadFile(*tokenFile)
	if err != nil {
		log.Fatalf("tokenproxy: %v", err)
	}
	token := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	if token == "" {
		log.Fatalf("tokenproxy: %s: no token", *tokenFile)
	}
	fmt.Fprintf(os.Stderr, "tokenproxy: %s -> %s\n", *listen, u)
	log.Fatal(http.ListenAndServe(*listen, newProxy(u, token)))
}

// newProxy returns the proxy to target, adding the token to each request.
//
// Each request is served in full duplex. Without it, net/http's server
// reads the rest of a request's body and closes it as soon as the handler
// writes the response's header, unless the handler has read it to EOF.
// ReverseProxy's transport sends a body of known length straight to the
// socket and only then reads the inbound body once more to see its EOF.
// A backend that answers as soon as it has the body (go-sdk starts an SSE
// stream at the first notification, within a millisecond) can have its
// header copied out before that last read; the read then fails with
// "invalid Read on closed Body", the transport closes the backend
// connection, and the client's stream ends without its response: the
// conformance runner's call then times out after 60 s. It happened to
// about one test_tool_with_logging call in 700, and failed a CI
// run (TestProxyKeepsEarlyStreams makes the race certain).
func newProxy(target *url.URL, token string) http.Handler {
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			log.Printf("tokenproxy: full duplex: %v", err)
		}
		p.ServeHTTP(w, r)
	})
}
