package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
)

// ServeChecks are what serve refuses to start without, beyond the plugins:
// validate runs them so that it exits 0 only when serve would start.
type ServeChecks struct {
	// HTTPAddr and AdminAddr are the listen addresses (flags; "" takes
	// [server]).
	HTTPAddr, AdminAddr string
	// KeyFile is --state-key-file; AuditLog is --audit-log.
	KeyFile, AuditLog string
	// InsecureNoAuth is --insecure-no-auth.
	InsecureNoAuth bool
}

// run returns a problem for each check that fails and a warning for each
// that serve would only log (an unreachable JWKS: serve starts and logs
// errors until it can fetch the keys).
func (c ServeChecks) run(ctx context.Context, cfg *config.Config) (problems []error, warnings []string) {
	quiet := slog.New(slog.DiscardHandler)
	if c.HTTPAddr == "" {
		c.HTTPAddr = cfg.Server.HTTP
	}
	if c.AdminAddr == "" {
		c.AdminAddr = cfg.Server.Admin
	}
	for _, a := range []struct{ flag, addr string }{{"--http / [server] http", c.HTTPAddr}, {"--admin / [server] admin", c.AdminAddr}} {
		if a.addr == "" {
			continue
		}
		if err := checkListenAddr(a.addr); err != nil {
			problems = append(problems, fmt.Errorf("%s %q: %v", a.flag, a.addr, err))
		} else if err := tryListen(a.addr); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s %q: %v", a.flag, a.addr, err))
		}
	}
	if _, err := stateKey(c.KeyFile, cfg.Server.StateKeyFile, quiet); err != nil {
		problems = append(problems, err)
	}
	if err := checkAuditLog(c.AuditLog, cfg); err != nil {
		problems = append(problems, err)
	}
	if c.HTTPAddr != "" {
		actx, cancel := context.WithCancel(ctx) // stops the JWKS refresh accessOptions starts
		_, _, err := accessOptions(actx, c.HTTPAddr, cfg, c.InsecureNoAuth, quiet)
		cancel()
		if err != nil {
			problems = append(problems, err)
		}
		if oa := cfg.Server.Auth.OAuth; oa != nil && err == nil {
			if err := fetchJWKS(ctx, oa.JWKSURL); err != nil {
				warnings = append(warnings, fmt.Sprintf("[server.auth.oauth] jwks_url %s: %v; serve starts anyway and refuses every token until it can fetch the keys", oa.JWKSURL, err))
			}
		}
	}
	return problems, warnings
}

// checkListenAddr checks addr as serve will listen on it: HOST:PORT or
// :PORT (127.0.0.1), a port number or service name, a host that resolves.
func checkListenAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%v (use HOST:PORT or :PORT)", err)
	}
	if n, err := strconv.Atoi(port); err == nil && (n < 0 || n > 65535) {
		return fmt.Errorf("port %d is out of range", n)
	} else if err != nil {
		if _, err := net.LookupPort("tcp", port); err != nil {
			return fmt.Errorf("port %q: %v", port, err)
		}
	}
	if host != "" && net.ParseIP(host) == nil {
		if _, err := net.DefaultResolver.LookupHost(context.Background(), host); err != nil {
			return fmt.Errorf("host %q does not resolve: %v", host, err)
		}
	}
	return nil
}

// tryListen binds addr as serve would (an empty host is 127.0.0.1) and
// lets go at once. A failure is a warning, not an error: an operator often
// validates the config of a server that is running, whose address is
// taken by design, and validate may run on another machine than serve (an
// address that is not on this one, a port this user may not bind).
func tryListen(addr string) error {
	host, port, _ := net.SplitHostPort(addr)
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err == nil {
		return ln.Close()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return errors.New("the address is in use: serve cannot start while something else listens there (expected if it is this config's running server)")
	}
	return fmt.Errorf("serve could not listen here: %v", err)
}

// checkAuditLog checks that the audit log serve would append to can be
// opened, without creating it.
func checkAuditLog(flagPath string, cfg *config.Config) error {
	path := flagPath
	if path == "" {
		path = cfg.Server.Audit.File
	}
	if path == "" || path == "-" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("audit log: %w", err)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("audit log %s: its folder does not exist", path)
	}
	return nil
}

// fetchJWKS fetches a JWKS once, as serve will at start.
func fetchJWKS(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return nil
}
