package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/source"
)

// inspectFetcher gets the plugin inspect shows, with the store, lock,
// keys and policy of the config (if any), writing no pin. A source that
// a [[plugin]] table names gets that table's verify, keys and sha256, as
// serve would.
func inspectFetcher(ctx context.Context, rf lifecycle.RemoteOptions, cfgPath string, logger *slog.Logger) (*lifecycle.Fetcher, error) {
	cfg := &config.Config{}
	if cfgPath != "" {
		c, err := config.Load(cfgPath)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	f := lifecycle.NewFetcher(ctx, rf, cfg, logger)
	f.DryRun = true
	f.Tables = cfg.Plugins // the plugin's own verify, keys and sha256 hold here too
	return f, nil
}

// remoteInfo is what inspect shows about where a plugin came from.
type remoteInfo struct {
	Source     string `json:"source"`
	Digest     string `json:"digest"`
	Pin        string `json:"pin"`
	MediaType  string `json:"media_type,omitempty"`
	WasmDigest string `json:"wasm_sha256"`
	Size       int    `json:"size_bytes"`
	Fetched    int64  `json:"fetched_bytes"`
	Signature  string `json:"signature"`
}

// remoteInfoOf describes a fetched plugin; nil for a local file.
func remoteInfoOf(res *source.Result) *remoteInfo {
	if res == nil {
		return nil
	}
	return &remoteInfo{Source: res.Ref.Raw, Digest: res.Digest, Pin: pinText(res), MediaType: res.MediaType,
		WasmDigest: res.WasmDigest, Size: len(res.Wasm), Fetched: res.Fetched, Signature: res.Signature.String()}
}

// pinText says where a digest came from.
func pinText(res *source.Result) string {
	switch res.Pin {
	case "source":
		return "named in the source"
	case "lock":
		return "pinned in the lock file"
	case "new":
		return "the tag's digest now (not pinned yet)"
	case "moved":
		return "the tag's digest now; the lock pins " + res.Previous
	}
	return "the tag's digest now (no lock file)"
}

func (ri *remoteInfo) print(w io.Writer) {
	if ri == nil {
		return
	}
	fmt.Fprintf(w, "source   %s\n", ri.Source)
	fmt.Fprintf(w, "digest   %s, %s\n", ri.Digest, ri.Pin)
	if ri.MediaType != "" {
		fmt.Fprintf(w, "layer    %s, %d bytes, %s\n", ri.MediaType, ri.Size, ri.WasmDigest)
	}
	fetched := "all from the store"
	if ri.Fetched > 0 {
		fetched = fmt.Sprintf("%d bytes downloaded", ri.Fetched)
	}
	fmt.Fprintf(w, "fetched  %s\n", fetched)
	fmt.Fprintf(w, "signature %s\n", ri.Signature)
}
