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
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1,
	}
	fmt.Fprintf(os.Stderr, "tokenproxy: %s -> %s\n", *listen, u)
	log.Fatal(http.ListenAndServe(*listen, p))
}
