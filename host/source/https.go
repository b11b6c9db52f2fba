package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// getHTTPS gets an https:// source. Its sha256 is required: the store is
// looked in first, by that digest, so a pinned URL is fetched once.
func (r *Resolver) getHTTPS(ctx context.Context, ref Ref, req Request) (*Result, error) {
	if req.SHA256 == "" {
		return nil, errors.New("an https:// plugin needs its sha256 (64 hex digits) in the config (or #sha256=HEX after the URL): without it anything the server sends would run")
	}
	d := "sha256:" + req.SHA256
	res := &Result{Ref: ref, Digest: d, Pin: "source", Signature: Signature{State: "none (https: pinned by its sha256)"}}
	b, n, err := r.blob(ctx, ref.Raw, "plugin", d, 0, r.opts.MaxSize, func(ctx context.Context) (reader, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodGet, ref.URL.String(), nil)
		if err != nil {
			return nil, err
		}
		hr.Header.Set("User-Agent", "mcpwasm")
		resp, err := r.client.Do(hr)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("the server answered %s", resp.Status)
		}
		if resp.ContentLength > r.opts.MaxSize {
			resp.Body.Close()
			return nil, fmt.Errorf("the server announces %d bytes, over the %d-byte limit: refused", resp.ContentLength, r.opts.MaxSize)
		}
		return resp.Body, nil
	})
	res.Fetched = n
	if err != nil {
		return nil, err
	}
	if !isWasm(b) {
		return nil, errors.New("the file is not a WebAssembly module (no \\0asm header)")
	}
	res.Wasm, res.WasmDigest = b, d
	return res, nil
}
