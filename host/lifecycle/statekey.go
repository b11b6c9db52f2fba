package lifecycle

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
)

// stateKeyEnv names the environment variable that may hold the requestState
// key itself (for platforms that hand secrets over as variables).
const stateKeyEnv = "MCPWASM_STATE_KEY"

// minStateKey is the shortest key accepted: 32 bytes, as many as the HMAC
// it keys produces. A shorter one would be the weak link.
const minStateKey = 32

// stateKey returns the key that signs multi round-trip requestState, so that
// replicas behind one load balancer accept each other's: from the file
// given by --state-key-file or [server] state_key_file (relative to the
// config's folder), else from $MCPWASM_STATE_KEY, else nil (a random key
// per process, fine for a single server). Surrounding whitespace is
// ignored, so `openssl rand -hex 32 > state.key` works as is.
func stateKey(flagPath, cfgPath string, logger *slog.Logger) ([]byte, error) {
	path := flagPath
	if path == "" && cfgPath != "" {
		path = cfgPath // config.Load made it relative to the config's folder
	}
	var key []byte
	var from string
	switch {
	case path != "":
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("state key: %v", err)
		}
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o007 != 0 { // as for the tokens file
			logger.Warn("state key file is readable by others: chmod 600 it", "file", path, "mode", st.Mode().Perm().String())
		}
		key, from = bytes.TrimSpace(b), "state key file "+path
	case os.Getenv(stateKeyEnv) != "":
		key, from = bytes.TrimSpace([]byte(os.Getenv(stateKeyEnv))), "$"+stateKeyEnv
	default:
		return nil, nil
	}
	if len(key) < minStateKey {
		return nil, fmt.Errorf("%s: the key is %d bytes; use at least %d (e.g. openssl rand -hex 32)", from, len(key), minStateKey)
	}
	logger.Info("requestState key loaded: replicas with the same key accept each other's round trips", "from", from)
	return key, nil
}
