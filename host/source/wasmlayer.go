package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/source/store"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
)

// Media types of a plugin in a registry.
const (
	// MediaTypeWasm is the layer media type of the OCI Wasm artifact
	// (the CNCF TAG Runtime layout) and of `oras push file.wasm:application/wasm`.
	MediaTypeWasm = "application/wasm"
	// MediaTypeWasmLayer is the layer media type of wasm-to-oci and Docker's
	// Wasm images.
	MediaTypeWasmLayer = "application/vnd.wasm.content.layer.v1+wasm"
	// MediaTypeWasmConfig is the config media type of the OCI Wasm artifact.
	MediaTypeWasmConfig = "application/vnd.wasm.config.v0+json"
)

// wasmLayerTypes are the layer media types taken as a module as they are.
var wasmLayerTypes = map[string]bool{
	MediaTypeWasm:      true,
	MediaTypeWasmLayer: true,
	"application/vnd.module.wasm.content.layer.v1+wasm": true, // wasm-to-oci, older
}

// tarLayerTypes are image layers searched for plugin.wasm (hyper-mcp's
// plugin images are a scratch image holding /plugin.wasm).
var tarLayerTypes = map[string]bool{
	ocispec.MediaTypeImageLayer:                         true,
	ocispec.MediaTypeImageLayerGzip:                     true,
	"application/vnd.docker.image.rootfs.diff.tar.gzip": true,
}

// maxTarLayers bounds the image layers searched for a module.
const maxTarLayers = 8

// manifest is an OCI (or Docker v2) image manifest or index.
type manifest struct {
	SchemaVersion int                  `json:"schemaVersion"`
	MediaType     string               `json:"mediaType"`
	ArtifactType  string               `json:"artifactType"`
	Config        ocispec.Descriptor   `json:"config"`
	Layers        []ocispec.Descriptor `json:"layers"`
	Manifests     []ocispec.Descriptor `json:"manifests"`
	Subject       *ocispec.Descriptor  `json:"subject"`
	Annotations   map[string]string    `json:"annotations"`
}

func parseManifest(b []byte) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a JSON manifest: %v", err)
	}
	if m.SchemaVersion != 2 {
		return nil, fmt.Errorf("schemaVersion %d: only version 2 manifests are understood", m.SchemaVersion)
	}
	switch m.MediaType {
	case "", mediaOCIManifest, mediaOCIIndex, mediaDockerManifest, mediaDockerList:
	default:
		return nil, fmt.Errorf("media type %q is not a manifest or an index", m.MediaType)
	}
	for _, d := range append(append([]ocispec.Descriptor{m.Config}, m.Layers...), m.Manifests...) {
		if d.Digest == "" && d.MediaType == "" {
			continue // an index has no config
		}
		if err := d.Digest.Validate(); err != nil || d.Digest.Algorithm() != "sha256" {
			return nil, fmt.Errorf("descriptor %q: only sha256 digests are accepted", d.Digest)
		}
		if d.Size < 0 {
			return nil, fmt.Errorf("descriptor %s: negative size", d.Digest)
		}
	}
	return &m, nil
}

func (m *manifest) isIndex() bool {
	return m.MediaType == mediaOCIIndex || m.MediaType == mediaDockerList || (m.MediaType == "" && len(m.Manifests) > 0 && len(m.Layers) == 0)
}

// pick chooses an index entry: the one for the wasm architecture
// (wasip1/wasm, wasi/wasm), else the only one, else linux/amd64 (hyper-mcp
// publishes its plugins as linux/amd64 images).
func (m *manifest) pick() (ocispec.Descriptor, error) {
	var amd64 []ocispec.Descriptor
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.Architecture == "wasm" {
			return d, nil
		}
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == "amd64" {
			amd64 = append(amd64, d)
		}
	}
	switch {
	case len(m.Manifests) == 1:
		return m.Manifests[0], nil
	case len(amd64) == 1:
		return amd64[0], nil
	case len(m.Manifests) == 0:
		return ocispec.Descriptor{}, errors.New("the index lists no manifest")
	}
	return ocispec.Descriptor{}, fmt.Errorf("the index lists %d manifests and none for the wasm architecture (or a single linux/amd64 one): name one by digest", len(m.Manifests))
}

// wasmFrom returns the module a manifest carries: its one Wasm layer, or
// failing that plugin.wasm (or the only *.wasm file) in its image layers.
func (r *Resolver) wasmFrom(ctx context.Context, repo *remote.Repository, ref Ref, m *manifest) ([]byte, string, int64, error) {
	var wasm, tars []ocispec.Descriptor
	var seen []string
	for _, l := range m.Layers {
		switch {
		case wasmLayerTypes[l.MediaType]:
			wasm = append(wasm, l)
		case tarLayerTypes[l.MediaType]:
			tars = append(tars, l)
		}
		seen = append(seen, l.MediaType)
	}
	fetch := func(d ocispec.Descriptor) func(context.Context) (reader, error) {
		return func(ctx context.Context) (reader, error) { return repo.Blobs().Fetch(ctx, d) }
	}
	switch {
	case len(wasm) > 1:
		return nil, "", 0, fmt.Errorf("%d Wasm layers: a plugin artifact has exactly one", len(wasm))
	case len(wasm) == 1:
		l := wasm[0]
		b, n, err := r.blob(ctx, ref.Raw, "plugin", l.Digest.String(), l.Size, r.opts.MaxSize, fetch(l))
		if err != nil {
			return nil, "", n, err
		}
		if !isWasm(b) {
			return nil, "", n, fmt.Errorf("the %s layer %s is not a WebAssembly module (no \\0asm header)", l.MediaType, l.Digest)
		}
		return b, l.MediaType, n, nil
	case len(tars) > maxTarLayers:
		return nil, "", 0, fmt.Errorf("no Wasm layer, and %d image layers (at most %d are searched for plugin.wasm)", len(tars), maxTarLayers)
	case len(tars) == 0:
		return nil, "", 0, fmt.Errorf("no Wasm layer (%s, %s) among its layers %q", MediaTypeWasm, MediaTypeWasmLayer, seen)
	}
	// An image: the last layer holding the module wins, as in the image's
	// file system. max_size bounds the plugin, so its layers share it.
	var declared int64
	for _, l := range tars {
		declared += l.Size
	}
	if declared > r.opts.MaxSize {
		return nil, "", 0, fmt.Errorf("its %d image layers declare %d bytes in all, over the %d-byte limit: refused", len(tars), declared, r.opts.MaxSize)
	}
	var found []byte
	var total, read int64
	unpackLeft := r.opts.MaxSize // what the layers may unpack to, together
	for _, l := range tars {
		left := r.opts.MaxSize - read
		if left <= 0 || l.Size > left {
			return nil, "", total, fmt.Errorf("its image layers are over the %d-byte limit: refused at layer %s", r.opts.MaxSize, l.Digest)
		}
		w, size, used, n, err := r.unpackLayer(ctx, ref, l, left, unpackLeft, fetch(l))
		total += n
		if err != nil {
			return nil, "", total, fmt.Errorf("image layer %s: %w", l.Digest, err)
		}
		read += size
		unpackLeft -= used
		if w != nil {
			found = w
		}
	}
	if found == nil {
		return nil, "", total, errors.New("no Wasm layer, and no plugin.wasm in its image layers")
	}
	return found, tars[len(tars)-1].MediaType, total, nil
}

// unpackLayer finds the module in an image layer, streaming the layer from
// the store as it unpacks it (a layer is never held whole in memory), and
// uses what it found only once the layer's bytes are verified. A layer
// found corrupt in the store is fetched again, once. It returns the module
// (nil if none), the layer's size, the bytes unpacked, and the bytes
// fetched.
func (r *Resolver) unpackLayer(ctx context.Context, ref Ref, l ocispec.Descriptor, max, unpackLeft int64, fetch func(context.Context) (reader, error)) ([]byte, int64, int64, int64, error) {
	var fetched int64
	for attempt := 0; ; attempt++ {
		bl, n, err := r.open(ctx, ref.Raw, "plugin", l.Digest.String(), l.Size, max, fetch)
		fetched += n
		if err != nil {
			return nil, 0, 0, fetched, err
		}
		w, used, err := wasmInTar(bl, l.MediaType, unpackLeft)
		if verr := bl.Verify(); verr != nil {
			err = verr // what was unpacked came from corrupt bytes
		}
		bl.Close()
		var corrupt *store.CorruptError
		if errors.As(err, &corrupt) && attempt == 0 {
			r.logger.Warn("plugin store: a blob was corrupt; fetching it again", "source", ref.Raw, "err", err)
			continue
		}
		return w, bl.Size(), used, fetched, err
	}
}

// isWasm reports whether b starts with the WebAssembly magic number.
func isWasm(b []byte) bool { return bytes.HasPrefix(b, []byte("\x00asm")) }

// wasmInTar finds the module in an image layer: plugin.wasm at its root,
// else the only *.wasm file. It reads at most max bytes of decompressed
// archive, so a compression bomb stops there, and returns how many it read.
// Each file's buffer is sized from its tar header once the header is
// within what is left, so memory stays at the module's size whatever the
// layer claims or holds.
func wasmInTar(layer io.Reader, mediaType string, max int64) ([]byte, int64, error) {
	lr := &io.LimitedReader{N: max + 1}
	w, err := wasmInTarFrom(layer, mediaType, max, lr)
	return w, max + 1 - lr.N, err
}

func wasmInTarFrom(layer io.Reader, mediaType string, max int64, lr *io.LimitedReader) ([]byte, error) {
	br := bufio.NewReader(layer)
	var rd io.Reader = br
	if magic, _ := br.Peek(2); strings.HasSuffix(mediaType, "gzip") || bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("not gzip: %v", err)
		}
		defer zr.Close()
		rd = zr
	}
	lr.R = rd
	tr := tar.NewReader(lr)
	var root []byte
	var others [][]byte
	var kept int64 // bytes of .wasm files held
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if lr.N <= 0 {
				return nil, fmt.Errorf("more than %d bytes (what is left of the plugin's limit) once decompressed: refused", max)
			}
			return nil, fmt.Errorf("not a tar archive: %v", err)
		}
		name := path.Clean("/" + h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(name, ".wasm") {
			continue
		}
		if h.Size > lr.N-1 || kept+h.Size > max {
			return nil, fmt.Errorf("%s: %d bytes, more than %d (what is left of the plugin's limit) once decompressed: refused", name, h.Size, max)
		}
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("%s: truncated (%v): refused", name, err)
		}
		if !isWasm(b) {
			continue
		}
		kept += h.Size
		if name == "/plugin.wasm" {
			root = b
		} else {
			others = append(others, b)
		}
	}
	switch {
	case root != nil:
		return root, nil
	case len(others) == 1:
		return others[0], nil
	case len(others) > 1:
		return nil, fmt.Errorf("%d .wasm files and no /plugin.wasm: cannot tell which is the plugin", len(others))
	}
	return nil, nil
}
