package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Limits on what a registry or web server can make us read.
const (
	// DefaultMaxSize bounds one plugin download (a Wasm layer or file).
	DefaultMaxSize = 256 << 20
	// DefaultTimeout bounds getting one source, every request included.
	DefaultTimeout = 5 * time.Minute
	// maxManifest bounds a manifest or index (oras-go's own default).
	maxManifest = 4 << 20
	// maxSignatureBlob bounds one signature payload or Sigstore bundle.
	maxSignatureBlob = 1 << 20
	// maxSignatureManifest bounds a referrer's manifest: one bundle layer
	// and a few annotations, about a kilobyte.
	maxSignatureManifest = 64 << 10
	// maxSignatures bounds the signatures read for one plugin.
	maxSignatures = 32
)

// Options configure a Resolver.
type Options struct {
	// Store keeps what is fetched; required.
	Store *store.Store
	// Lock records the digest each tag resolves to the first time, and
	// gives it on later starts. Nil: tags are resolved every time.
	Lock *Lock
	// Offline refuses every network access: a source must be in the store
	// (and a tag pinned in Lock).
	Offline bool
	// Update resolves tags again and moves their pins, and looks for
	// signatures again (mcpwasm pull --update).
	Update bool
	// HTTPClient sends every request; nil builds one with connection,
	// TLS-handshake and response-header timeouts, honouring the proxy
	// environment variables.
	HTTPClient *http.Client
	// Credentials answers a registry host with a login; nil reads the
	// Docker credential file ($DOCKER_CONFIG/config.json or
	// ~/.docker/config.json, credential helpers included), anonymous if it
	// has none.
	Credentials auth.CredentialFunc
	// PlainHTTP says which registry hosts are spoken to over plain HTTP;
	// nil: loopback hosts only (localhost, 127.0.0.0/8, [::1]), as Docker.
	PlainHTTP func(host string) bool
	// MaxSize bounds one plugin's bytes (DefaultMaxSize if 0).
	MaxSize int64
	// Timeout bounds getting one source (DefaultTimeout if 0).
	Timeout time.Duration
	// Progress, if set, is told of download progress.
	Progress func(Progress)
	// Logger gets warnings (a corrupt blob, an unsigned plugin allowed).
	Logger *slog.Logger
}

// Progress is the state of one download.
type Progress struct {
	Source string
	// What is being fetched: "manifest", "plugin", "signature".
	What string
	// Done and Total bytes (Total 0 when unknown).
	Done, Total int64
}

// Request is one plugin to get.
type Request struct {
	// Source is the oci:// or https:// reference.
	Source string
	// SHA256 (64 hex digits) pins the plugin's bytes: required for https,
	// optional for oci (then checked on top of the manifest digest).
	SHA256 string
	// Policy says which signatures to require (OCI only).
	Policy Policy
}

// Result is a plugin got from a source.
type Result struct {
	Ref Ref
	// Wasm is the module.
	Wasm []byte
	// Digest is what the plugin is pinned by: the manifest digest for OCI,
	// the file's sha256 for HTTPS.
	Digest string
	// WasmDigest is the sha256 of Wasm ("sha256:<hex>").
	WasmDigest string
	// MediaType is the layer's media type (OCI).
	MediaType string
	// Pin says where Digest came from: "source" (a digest in the source),
	// "lock" (an existing pin), "new" (pinned now), "moved" (Update moved
	// it from Previous) or "unpinned" (no lock).
	Pin      string
	Previous string
	// Fetched is the number of bytes downloaded (0: all from the store).
	Fetched int64
	// Signature is what was found and checked.
	Signature Signature
}

// Resolver gets plugins from sources. It is safe for concurrent use.
type Resolver struct {
	opts   Options
	client *http.Client
	auth   *auth.Client
	logger *slog.Logger
}

// New returns a Resolver.
func New(opts Options) (*Resolver, error) {
	if opts.Store == nil {
		return nil, errors.New("source: no store")
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.PlainHTTP == nil {
		opts.PlainHTTP = isLoopbackHost
	}
	r := &Resolver{opts: opts, logger: opts.Logger}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.client = opts.HTTPClient
	if r.client == nil {
		r.client = defaultClient()
	}
	r.client = guarded(r.client, opts.PlainHTTP)
	creds := opts.Credentials
	if creds == nil {
		creds = dockerCredentials(r.logger)
	}
	r.auth = &auth.Client{Client: r.client, Credential: creds, Cache: auth.NewCache(),
		Header: http.Header{"User-Agent": {"mcpwasm"}}}
	return r, nil
}

// Store is the resolver's store.
func (r *Resolver) Store() *store.Store { return r.opts.Store }

// Get returns the plugin req names, from the store when it is there and
// pinned, else from the network (unless offline), checked against its
// digest, its sha256 pin and its signature policy. Every error names the
// source.
func (r *Resolver) Get(ctx context.Context, req Request) (_ *Result, err error) {
	ref, err := Parse(req.Source)
	if err != nil {
		return nil, err
	}
	if ref.SHA256 != "" {
		if req.SHA256 != "" && !strings.EqualFold(req.SHA256, ref.SHA256) {
			return nil, fmt.Errorf("%s: the URL pins sha256:%s, the config sha256:%s", req.Source, ref.SHA256, req.SHA256)
		}
		req.SHA256 = ref.SHA256
	}
	if req.SHA256 != "" {
		req.SHA256 = strings.ToLower(req.SHA256)
		if _, err := hex.DecodeString(req.SHA256); err != nil || len(req.SHA256) != 64 {
			return nil, fmt.Errorf("%s: sha256 must be 64 hex digits", req.Source)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	ctx, span := tracing.Start(ctx, "source.get", tracing.KeySource, ref.traceName())
	var res *Result
	defer func() {
		if res != nil {
			span.SetString(tracing.KeyDigest, strings.TrimPrefix(res.WasmDigest, "sha256:"))
		}
		span.End(err)
	}()
	switch ref.Kind {
	case OCI:
		res, err = r.getOCI(ctx, ref, req)
	case HTTPS:
		res, err = r.getHTTPS(ctx, ref, req)
	default:
		return nil, fmt.Errorf("%s: not an oci:// or https:// source", req.Source)
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && !IsOffline(err) {
			err = fmt.Errorf("%w (gave up after %s)", err, r.opts.Timeout)
		}
		return nil, printable(fmt.Errorf("%s: %w", req.Source, err))
	}
	if req.SHA256 != "" && res.WasmDigest != "sha256:"+req.SHA256 {
		return nil, fmt.Errorf("%s: sha256 mismatch: the plugin is %s, the config pins sha256:%s", req.Source, res.WasmDigest, req.SHA256)
	}
	if ref.Kind == OCI {
		r.recordPin(res)
	}
	return res, nil
}

// blob returns the blob d from the store, or fetches it with fetch (unless
// offline) and stores it. what names it in errors and progress.
func (r *Resolver) blob(ctx context.Context, src, what, d string, size, max int64, fetch func(context.Context) (reader, error)) ([]byte, int64, error) {
	return fromStore(ctx, r, r.opts.Store.Read, src, what, d, size, max, fetch)
}

// open is blob as a verifying stream (see store.Blob), for an image layer
// unpacked as it is read, so that it is never held whole beside what it
// unpacks to.
func (r *Resolver) open(ctx context.Context, src, what, d string, size, max int64, fetch func(context.Context) (reader, error)) (*store.Blob, int64, error) {
	return fromStore(ctx, r, r.opts.Store.Open, src, what, d, size, max, fetch)
}

// fromStore is blob and open: get reads d from the store; when that fails,
// fetchMissing fetches it and get reads it again. It returns the bytes
// fetched (0 when the store had d).
func fromStore[T any](ctx context.Context, r *Resolver, get func(d string, max int64) (T, error), src, what, d string, size, max int64, fetch func(context.Context) (reader, error)) (T, int64, error) {
	v, err := get(d, max)
	if err == nil {
		return v, 0, nil
	}
	n, err := r.fetchMissing(ctx, src, what, d, size, max, err, fetch)
	if err != nil {
		var none T
		return none, n, err
	}
	v, err = get(d, max)
	return v, n, err
}

// fetchMissing fetches the blob d into the store after reading it from
// the store failed with readErr: a missing or corrupt blob is fetched
// (unless offline), any other failure returned.
func (r *Resolver) fetchMissing(ctx context.Context, src, what, d string, size, max int64, readErr error, fetch func(context.Context) (reader, error)) (int64, error) {
	var corrupt *store.CorruptError
	switch {
	case errors.As(readErr, &corrupt):
		r.logger.Warn("plugin store: a blob was corrupt; fetching it again", "source", src, "err", readErr)
	case !errors.Is(readErr, fs.ErrNotExist):
		return 0, readErr
	}
	if r.opts.Offline {
		return 0, fmt.Errorf("%w: the %s %s is not in the store (%s): run mcpwasm pull while online", errOffline, what, d, r.opts.Store.Dir())
	}
	if size > max {
		return 0, fmt.Errorf("the %s %s declares %d bytes, over the %d-byte limit", what, d, size, max)
	}
	rc, err := fetch(ctx)
	if err != nil {
		return 0, fmt.Errorf("fetching the %s %s: %w", what, d, hideQuery(err))
	}
	defer rc.Close()
	var progress func(int64)
	if r.opts.Progress != nil {
		progress = func(n int64) { r.opts.Progress(Progress{Source: src, What: what, Done: n, Total: size}) }
	}
	limit := max
	if size > 0 {
		limit = size // the descriptor's size is the most we read
	}
	n, err := r.opts.Store.Write(d, rc, limit, progress)
	if err != nil {
		var mm *store.MismatchError
		var big *store.TooLargeError
		switch {
		case errors.As(err, &mm):
			return n, fmt.Errorf("the %s fetched as %s is not that content: digest mismatch, expected %s, received %s (tampered or corrupted)", what, d, mm.Want, mm.Got)
		case errors.As(err, &big):
			return n, fmt.Errorf("the %s %s is larger than %d bytes (declared %d): refused", what, d, limit, size)
		}
		return n, fmt.Errorf("fetching the %s %s: %w", what, d, hideQuery(err))
	}
	if size > 0 && n != size {
		return n, fmt.Errorf("the %s %s is %d bytes, its descriptor says %d", what, d, n, size)
	}
	return n, nil
}

// reader is a download body.
type reader interface {
	Read([]byte) (int, error)
	Close() error
}

// printableError is an error whose text has its control characters
// escaped: a registry's or web server's words (error messages, a status
// line) are part of it and reach terminals and logs as they are printed.
type printableError struct {
	msg string
	err error
}

func (e *printableError) Error() string { return e.msg }
func (e *printableError) Unwrap() error { return e.err }

// printable returns err with its text's control characters escaped
// (\x1b, \n…), unwrapping to err.
func printable(err error) error {
	msg := err.Error()
	if strings.IndexFunc(msg, isControl) < 0 {
		return err
	}
	var b strings.Builder
	for _, c := range msg {
		if isControl(c) {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteRune(c)
	}
	return &printableError{msg: b.String(), err: err}
}

// isControl reports whether c is a C0 or C1 control character or DEL.
func isControl(c rune) bool { return c < ' ' || c == 0x7f || (c >= 0x80 && c < 0xa0) }

// hideQuery drops the query of the URL in a request error: the URL may be
// one a server redirected to, and a storage service's pre-signed URL
// carries its signature in the query. Errors end up in logs.
func hideQuery(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && (u.RawQuery != "" || u.User != nil) {
			u.RawQuery, u.User = "", nil
			ue.URL = u.String() + "?…"
		}
	}
	return err
}

func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
