// Package source gets plugins from where the operator names them: a local
// file, an OCI registry or an HTTPS URL.
//
//	oci://REGISTRY/REPOSITORY:TAG           a tag, pinned to its digest on first use
//	oci://REGISTRY/REPOSITORY@sha256:HEX    a digest
//	https://HOST/PATH/plugin.wasm           with a required sha256 (in the config,
//	                                        or as #sha256=HEX on the command line)
//
// A Resolver fetches remote plugins into a content-addressed store (package
// store), records the digest a tag resolved to in a lock file (Lock) so
// later starts run the same bytes, and checks the signatures stored in the
// registry (cosign's .sig tag and Sigstore bundles attached as referrers)
// against the operator's public keys or, in binaries built with -tags
// sigstore, a keyless identity (Policy). Once a plugin is in the store and
// pinned, getting it again touches no network.
//
// Every download is bounded in size and time; every error names the
// source.
package source

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// Kind is where a plugin comes from.
type Kind int

const (
	// File is a path on the local file system.
	File Kind = iota
	// OCI is an artifact in an OCI registry (oci://).
	OCI
	// HTTPS is a file on a web server (https://), pinned by its sha256.
	HTTPS
)

// Ref is a parsed plugin source.
type Ref struct {
	// Raw is the source as written.
	Raw  string
	Kind Kind
	// Registry (host[:port]), Repository, and Tag and/or Digest, for OCI.
	// Digest is "sha256:<hex>" when the source names one.
	Registry, Repository, Tag, Digest string
	// URL is the https URL, for HTTPS (without its fragment).
	URL *url.URL
	// SHA256 is the pin an https URL carries as "#sha256=<64 hex digits>"
	// (how a command-line argument gives it).
	SHA256 string
}

// traceName names the source in a trace span: the registry, repository
// and tag or digest of an OCI source; only the scheme and host of a URL,
// whose path or query may carry a token.
func (r Ref) traceName() string {
	switch {
	case r.Kind == OCI:
		s := "oci://" + r.Registry + "/" + r.Repository
		if r.Tag != "" {
			s += ":" + r.Tag
		}
		if r.Digest != "" {
			s += "@" + r.Digest
		}
		return s
	case r.URL != nil:
		return r.URL.Scheme + "://" + r.URL.Host
	}
	return ""
}

// IsRemote reports whether s names a registry or URL rather than a file.
func IsRemote(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "oci://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

var sha256RE = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

var tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// Parse parses a plugin source. Anything not oci:// or https:// is a File
// path. Plain http:// is refused, as is an OCI reference without a tag or
// digest (say which you mean) or with a digest that is not sha256.
func Parse(s string) (Ref, error) {
	r := Ref{Raw: s}
	l := strings.ToLower(s)
	if safe, ok := withoutUserinfo(s); ok && IsRemote(s) {
		return r, fmt.Errorf("%s: credentials in a plugin source are refused (they would be logged): registries take the login in the Docker credential file", safe)
	}
	switch {
	case strings.HasPrefix(l, "oci://"):
		r.Kind = OCI
		rest := s[len("oci://"):]
		ref, err := registry.ParseReference(rest)
		if err != nil {
			return r, fmt.Errorf("%s: not an OCI reference (oci://REGISTRY/REPOSITORY:TAG or @sha256:…): %v", s, err)
		}
		r.Registry, r.Repository = ref.Registry, ref.Repository
		if i := strings.Index(rest, "@"); i >= 0 {
			r.Digest = rest[i+1:]
			if j := strings.LastIndex(rest[:i], ":"); j > strings.LastIndex(rest[:i], "/") {
				r.Tag = rest[j+1 : i]
				if !tagRE.MatchString(r.Tag) {
					return r, fmt.Errorf("%s: %q is not a valid tag", s, r.Tag)
				}
			}
			if !strings.HasPrefix(r.Digest, "sha256:") || len(r.Digest) != len("sha256:")+64 || strings.ToLower(r.Digest) != r.Digest {
				return r, fmt.Errorf("%s: only sha256 digests are accepted (@sha256:<64 lowercase hex digits>)", s)
			}
		} else {
			r.Tag = ref.Reference
		}
		if r.Tag == "" && r.Digest == "" {
			return r, fmt.Errorf("%s: name a tag (:1.0) or a digest (@sha256:…); no tag is assumed", s)
		}
		return r, nil
	case strings.HasPrefix(l, "https://"):
		r.Kind = HTTPS
		u, err := url.Parse(s)
		if err != nil {
			return r, fmt.Errorf("%s: not a URL: %v", s, err)
		}
		if u.Host == "" {
			return r, fmt.Errorf("%s: the URL has no host", s)
		}
		if u.User != nil {
			return r, fmt.Errorf("%s: credentials in a plugin URL are refused (they would be logged)", redact(u))
		}
		if u.Fragment != "" {
			sum, ok := strings.CutPrefix(u.Fragment, "sha256=")
			if !ok || !sha256RE.MatchString(sum) {
				return r, fmt.Errorf("%s: the only fragment understood is #sha256=<64 hex digits>", s)
			}
			r.SHA256 = strings.ToLower(sum)
			u.Fragment, u.RawFragment = "", ""
		}
		r.URL = u
		return r, nil
	case strings.HasPrefix(l, "http://"):
		return r, fmt.Errorf("%s: plain http is refused; use https:// (with a sha256)", s)
	}
	r.Kind = File
	return r, nil
}

// withoutUserinfo returns s with the user information of its authority
// ("scheme://USER:PASSWORD@host/…") replaced by "REDACTED", and whether
// there was any. It works on the text, so it also catches what url.Parse
// or an OCI reference parser would reject, and echo.
func withoutUserinfo(s string) (string, bool) {
	i := strings.Index(s, "://")
	if i < 0 {
		return s, false
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return s, false
	}
	return s[:i+3] + "REDACTED@" + rest[at+1:], true
}

func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// Name derives a plugin name from a source: the last part of an OCI
// repository ("oci://ghcr.io/acme/textkit:1.0" → "textkit"), or the URL's
// file name without .wasm. Characters clients reject become "_".
func (r Ref) Name() string {
	var n string
	switch r.Kind {
	case OCI:
		n = path.Base(r.Repository)
	case HTTPS:
		n = strings.TrimSuffix(path.Base(r.URL.Path), ".wasm")
	default:
		n = strings.TrimSuffix(path.Base(strings.ReplaceAll(r.Raw, "\\", "/")), ".wasm")
	}
	n = unsafeName.ReplaceAllString(n, "_")
	if n == "" || n == "." || n == "_" {
		n = "plugin"
	}
	return n
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// repoKey names the repository: "registry/repository".
func (r Ref) repoKey() string { return r.Registry + "/" + r.Repository }

// errOffline is wrapped by every error that a fetch would have needed the
// network for while offline.
var errOffline = errors.New("offline")

// IsOffline reports whether err is a refusal to use the network because
// the resolver is offline.
func IsOffline(err error) bool { return errors.Is(err, errOffline) }
