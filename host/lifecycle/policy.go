package lifecycle

import (
	"strings"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/policy/entity"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// LoadPolicy reads [server.policy]: nil (no policy) when it lists no file.
// Its errors name the file, line and reason.
func LoadPolicy(cfg *config.Config) (*policy.Set, error) {
	if cfg == nil || !cfg.Server.Policy.Enabled() {
		return nil, nil
	}
	files, schema := cfg.Server.Policy.Files, cfg.Server.Policy.Schema
	return policy.Load(files, schema)
}

// policyFiles are the absolute paths of the policy files and schema of a
// config, for the watcher.
func policyFiles(cfg *config.Config) map[string]bool {
	out := map[string]bool{}
	if cfg == nil {
		return out
	}
	for _, f := range cfg.Server.Policy.Files {
		out[absPath(f)] = true
	}
	if s := cfg.Server.Policy.Schema; s != "" {
		out[absPath(s)] = true
	}
	return out
}

// reloadPolicy reads cfg's policies and puts them in force; a set that
// does not load is logged (file, line, reason) and the one in force stays.
// r.mu must be held.
func (r *reloader) reloadPolicy(cfg *config.Config, why string) {
	if r.setPolicy == nil {
		return
	}
	set, err := LoadPolicy(cfg)
	if err != nil {
		r.c.logger.Error("policies not reloaded; the set in force stays", "trigger", why, "err", err)
		return
	}
	r.setPolicy(set)
	r.c.logger.Info("policies in force", "trigger", why, "policies", set.Len(), "files", strings.Join(set.Files(), ", "))
}

// signatureFacts gives the policy each plugin's signature state, from
// what the fetcher verified: a local file is "unsigned".
func signatureFacts(f *Fetcher) *entity.Facts {
	return &entity.Facts{Signature: func(src string) string {
		if f == nil {
			return ""
		}
		res := f.Result(src)
		if res == nil {
			return ""
		}
		s := res.Signature.State
		if strings.HasPrefix(s, "none") {
			return "none"
		}
		return s
	}}
}

// checkPolicy checks cfg's policies for validate: against the schema
// generated for what reg serves or, when [server.policy] names a schema,
// against that one (LoadPolicy checks it). against says which.
func checkPolicy(cfg *config.Config, reg *registry.Registry) (n int, against string, err error) {
	set, err := LoadPolicy(cfg)
	if err != nil || set == nil {
		return 0, "", err
	}
	if schema := cfg.Server.Policy.Schema; schema != "" {
		return set.Len(), schema, nil
	}
	sc, err := entity.Schema(reg).Schema()
	if err != nil {
		return 0, "", err
	}
	return set.Len(), "the schema generated for these plugins", sc.Check(set)
}
