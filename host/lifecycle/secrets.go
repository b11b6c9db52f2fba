package lifecycle

import (
	"bufio"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/mcpwasm/mcpwasm/host/server"
)

// serverSecrets are the secrets serve holds besides the plugins' own: the
// requestState key, the tokens file's tokens, the password in the task
// store's URL, the OTLP exporters' headers. They are redacted from every
// answer, log line, audit line and trace, like the plugins' secrets.
func serverSecrets(cfg *config.Config, stateKey []byte, taskStore string) []string {
	var out []string
	if len(stateKey) > 0 {
		out = append(out, string(stateKey))
	}
	if f := cfg.Server.Auth.TokensFile; f != "" {
		if !filepath.IsAbs(f) && cfg.File != "" {
			f = filepath.Join(filepath.Dir(cfg.File), f)
		}
		if file, err := os.Open(f); err == nil {
			sc := bufio.NewScanner(file)
			for sc.Scan() {
				fs := strings.Fields(sc.Text())
				if len(fs) >= 2 && !strings.HasPrefix(fs[0], "#") {
					out = append(out, fs[1])
				}
			}
			file.Close()
		}
	}
	if u, err := url.Parse(taskStore); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, kv := range strings.Split(os.Getenv(v), ",") {
			if _, val, ok := strings.Cut(kv, "="); ok {
				if dec, err := url.QueryUnescape(strings.TrimSpace(val)); err == nil {
					out = append(out, dec)
				}
			}
		}
	}
	return out
}

// setSecrets makes the known secrets the server's and those of specs; a
// value too short to redact is logged by where it comes from, never shown.
func (c *Catalog) setSecrets(specs []Spec) {
	if c.known == nil {
		return
	}
	all := append([]string(nil), c.baseSecrets...)
	from := make([]string, len(all))
	for i := range from {
		from[i] = "the server's own (state key, tokens file, task store, OTLP headers)"
	}
	for _, s := range specs {
		for _, v := range s.Secrets {
			all = append(all, v)
			from = append(from, "plugin "+s.Config.Name+"'s [plugin.config]")
		}
	}
	for _, i := range c.known.Set(all) {
		c.logger.Warn("a secret is too short to redact from answers and logs", "from", from[i], "min_length", secrets.MinLen)
	}
}

// resultPolicy is what is done to a plugin's answers (server.Options.Results).
func (c *Catalog) resultPolicy(plugin string) server.ResultPolicy {
	t := config.Trust{}.Resolve(config.Trust{})
	if v, ok := c.settings.Load(plugin); ok {
		t = v.(config.Trust)
	}
	mode, err := secrets.ParseMode(t.Secrets)
	if err != nil {
		mode = secrets.Redact
	}
	return server.ResultPolicy{Secrets: secrets.Policy{Known: c.known.Redactor(), Mode: mode}, Strip: t.ResultsHiddenText == "strip"}
}

// held says why a declaration clients cannot see is held (server.Options.Held).
func (c *Catalog) held(kind, name string) (string, bool) {
	if c.vet == nil {
		return "", false
	}
	h, ok := c.vet.Held(fingerprint.Kind(kind), name)
	if !ok {
		return "", false
	}
	return c.vet.HeldError(h), true
}

// redactingLogger wraps logger so that no known secret reaches it.
func redactingLogger(logger *slog.Logger, known *secrets.Known) *slog.Logger {
	if logger == nil {
		return nil
	}
	return slog.New(secrets.Handler(logger.Handler(), known))
}
