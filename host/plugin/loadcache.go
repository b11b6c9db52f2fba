package plugin

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/private"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
)

// The load cache keeps, beside wazero's compiled code, what a start would
// otherwise recompute for every plugin (RATIONALE.md, "The load path"):
//
//   - the prepared module: the input after Preflight (tables capped), the
//     network imports renamed and the interruption points added, with what
//     Preflight found in it. Keyed by the input's SHA-256 and everything
//     the rewrite depends on (rewriterVersion, the interrupt mode, the
//     table caps), so a warm start does no rewrite.
//   - the declarations: the answers of mcpwasm_abi_version and of the list
//     exports at load. Keyed by the prepared module's key and the plugin's
//     configuration (name, guest config, grants, limits), so a warm start
//     lists a plugin without instantiating it (ABI.md §2: lists depend on
//     the module and its configuration only).
//
// Entries live in a "load" folder of the compilation cache folder and pass
// the same privacy checks (checkCacheDir at start; each file again when
// read). Each file carries the SHA-256 of its body: a file that is
// truncated, corrupted or of another format is a miss, removed and
// rewritten.

// rewriterVersion names the output of Preflight and Instrument. Bump it
// with any change to what they write: prepared modules cached under
// another version are not used (4: imports are no longer renamed; 5: data segments merged under a data count section too). A build from a VCS checkout
// adds its revision (buildRevision), so a release never reads what another
// one wrote.
var rewriterVersion = "5"

// declVersion names the format and meaning of cached declarations.
const declVersion = "1"

// loadCacheMagic starts every entry file.
var loadCacheMagic = []byte("mcpwasm-load-cache\n")

// buildRevision is the VCS revision the binary was built from, "" if none.
var buildRevision = func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	return rev + "/" + modified
}()

// loadCache is the folder of the load cache; nil when there is no on-disk
// cache (every method is then a miss or a no-op).
type loadCache struct {
	dir string
}

// openLoadCache creates the load folder in a checked compilation cache
// folder.
func openLoadCache(cacheDir string) (*loadCache, error) {
	dir := filepath.Join(cacheDir, "load")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := private.Dir(dir); err != nil {
		return nil, err
	}
	return &loadCache{dir: dir}, nil
}

// prepKey is the key of a prepared module.
func prepKey(digest string, cfg *Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "prep\x00%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%+v", rewriterVersion, buildRevision, digest,
		cfg.Interrupts, MaxTableElements, maxTableElements(cfg.MemoryLimit), interruptOptions)
	return hex.EncodeToString(h.Sum(nil))
}

// declKey is the key of a plugin's declarations: its prepared module and
// every part of its configuration a list export could see or be bounded by.
func declKey(prep string, cfg *Config) string {
	type grant struct {
		Path     string
		ReadOnly bool
	}
	c := struct {
		Name                 string
		Timeout              int64
		MemoryLimit          uint64
		MaxOutput            int
		GuestConfig          map[string]string
		Grants               []grant
		NetGrants, NetLimits any
		ABI                  int
	}{Name: cfg.Name, Timeout: int64(cfg.Timeout), MemoryLimit: cfg.MemoryLimit, MaxOutput: cfg.MaxOutput,
		GuestConfig: cfg.GuestConfig, NetGrants: cfg.Network.Grants, NetLimits: cfg.Network.Limits, ABI: abi.Version}
	for _, g := range cfg.Grants {
		c.Grants = append(c.Grants, grant{g.Path, g.ReadOnly})
	}
	b, _ := json.Marshal(c) // map keys sorted: the same config, the same bytes
	h := sha256.New()
	fmt.Fprintf(h, "decl\x00%s\x00%s\x00", declVersion, prep)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// prepared is a cached prepared module.
type prepared struct {
	Module *wasmbin.Module
	Wasm   []byte
}

// declarations are a plugin's cached load-time answers.
type declarations struct {
	// Module is what Preflight found in the module.
	Module *wasmbin.Module
	// ABIVersion is mcpwasm_abi_version's answer (1 if not exported).
	ABIVersion int
	// Lists maps listKey(export, input) to the export's output.
	Lists map[string][]byte
}

func listKey(export string, input []byte) string {
	return export + "\x00" + string(input)
}

func (c *loadCache) path(kind, key string) string {
	return filepath.Join(c.dir, kind+"-"+key)
}

// get decodes the entry kind-key into v; false on a miss. A damaged entry
// is removed.
func (c *loadCache) get(kind, key string, v any) bool {
	if c == nil {
		return false
	}
	p := c.path(kind, key)
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() || private.Check(p, info) != nil {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	body, ok := checkEntry(data)
	if !ok || gob.NewDecoder(bytes.NewReader(body)).Decode(v) != nil {
		os.Remove(p)
		return false
	}
	return true
}

// checkEntry returns an entry file's body if its checksum holds.
func checkEntry(data []byte) ([]byte, bool) {
	if !bytes.HasPrefix(data, loadCacheMagic) || len(data) < len(loadCacheMagic)+sha256.Size {
		return nil, false
	}
	data = data[len(loadCacheMagic):]
	sum, body := data[:sha256.Size], data[sha256.Size:]
	got := sha256.Sum256(body)
	return body, bytes.Equal(sum, got[:])
}

// put writes v as the entry kind-key, atomically (a reader sees the old
// file or the whole new one). Failures only cost a later start its speed.
func (c *loadCache) put(kind, key string, v any) error {
	if c == nil {
		return nil
	}
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(v); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	f, err := os.CreateTemp(c.dir, ".tmp-"+kind+"-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, a no-op
	_, err = f.Write(append(append(append([]byte{}, loadCacheMagic...), sum[:]...), body.Bytes()...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), c.path(kind, key))
}
