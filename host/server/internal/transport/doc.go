// Package transport holds what mcpwasm puts between go-sdk v1.8.0 and the
// wire: the stdio transport, which checks every line before go-sdk reads it
// and keeps client ids as sent (stdio*.go), and the adapters that give a
// handler its request's JSON-RPC id and a context that ends with the HTTP
// request it came in (reqid.go). Each works around something go-sdk v1.8.0
// does or lacks; RATIONALE.md, "go-sdk v1.8.0 workarounds", lists what
// would retire each.
package transport
