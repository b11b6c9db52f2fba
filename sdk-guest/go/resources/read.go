package resources

import (
	"errors"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// read runs one read_resource export: the ReadResourceResult to output, or
// the error that fails the export (its message reaches the client).
func read(input []byte) ([]byte, error) {
	guest.StartCall()
	type request struct {
		URI string `json:"uri"`
	}
	req, ctx, err := guest.Decode[request, mcpwasm.Context]("read_resource", "", input)
	if err != nil {
		return nil, err
	}
	uri := req.URI
	r := &Request{URI: uri, Host: mcpwasm.Host{Context: ctx}}
	h, mimeType := find(r)
	if h == nil {
		return nil, errors.New("resource " + guest.Quote(uri) + " not found: this plugin declares no such resource and no template matches it")
	}
	res, err := guest.Handle("the read of the resource "+guest.Quote(uri), func() (*Result, error) { return h(r) })
	if err != nil {
		return nil, err
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, errors.New("the handler of the resource " + guest.Quote(uri) + " returned no contents")
	}
	for i := range res.Contents {
		if res.Contents[i].URI == "" {
			res.Contents[i].URI = uri
		}
		if res.Contents[i].MimeType == "" {
			res.Contents[i].MimeType = mimeType
		}
	}
	out, err := guest.Marshal(res)
	if err != nil {
		return nil, errors.New("the result of reading " + guest.Quote(uri) + " cannot be encoded as JSON: " + err.Error())
	}
	return out, nil
}

// find returns the handler for r.URI and the declared MIME type, filling in
// r.Template and r.Vars for a template. A concrete resource wins over a
// template; among templates, the first registered that matches.
func find(r *Request) (Handler, string) {
	for _, d := range concrete {
		if d.uri == r.URI {
			return d.handler, d.mimeType
		}
	}
	for _, d := range templates {
		if d.parsed == nil {
			continue
		}
		if vars, ok := d.parsed.match(r.URI); ok {
			r.Template, r.Vars = d.uriTemplate, vars
			return d.handler, d.mimeType
		}
	}
	return nil, ""
}
