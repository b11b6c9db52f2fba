// Package check verifies the Kubernetes manifests in deploy/kubernetes
// without a cluster: each document decodes strictly into its Kubernetes API
// type (an unknown or misspelled field fails), and the pieces agree with
// each other and with mcpwasm (the config in the ConfigMap parses, the
// probes hit the health endpoints, the secrets are mounted where the config
// reads them, the memory limit covers the memory budget). It also builds the
// container image's static binary with scripts/build-static.sh and checks
// that it needs no dynamic loader.
//
// It is its own module so that k8s.io/api stays out of mcpwasm's
// dependencies. `make test` runs it:
//
//	cd deploy/kubernetes/check && go test ./...
package check
