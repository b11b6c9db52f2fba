//go:build !sigstore

package source

import "errors"

const keylessBuilt = false

func loadTrustedRoot(string) error { return nil }

// checkKeyless is not available without -tags sigstore.
func checkKeyless([]byte, string, *Keyless) (string, error) {
	return "", errors.New("a keyless (certificate) signature: this binary checks signatures made with a key; keyless verification needs a binary built with -tags sigstore")
}
