package lifecycle

import (
	"reflect"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/config"
)

// pendingSettings logs the restart-only settings of cfg that differ from
// the config the process started with (not from the previous file): a
// setting changed and then changed back to its running value is not
// pending any more. Each is logged when it becomes pending, and once when
// it no longer is. r.mu must be held.
func (r *reloader) pendingSettings(cfg *config.Config) {
	if r.running == nil {
		r.running = r.cfg // the first reload: r.cfg is still the config at start
	}
	now := map[string]bool{}
	for _, k := range restartOnly(r.running, cfg) {
		now[k] = true
		if !r.pending[k] {
			r.c.logger.Warn("config setting changed: it takes effect at the next start, not on reload", "setting", k)
		}
	}
	var back []string
	for k := range r.pending {
		if !now[k] {
			back = append(back, k)
		}
	}
	slices.Sort(back)
	for _, k := range back {
		r.c.logger.Info("config setting back at the value in force: no restart needed for it", "setting", k)
	}
	r.pending = now
}

// restartOnly names the settings that differ between two configs and that
// a reload does not apply. A reload applies the [[plugin]] tables (paths,
// limits, guest config, grants, pins, prefixes), [defaults], [server]
// roots and [server.policy]; everything else (the listen address, stateless, HTTP bounds,
// auth, the name, the cache folder, and any table this code does not know)
// is read once, at start. Fields are compared by reflection so a setting
// added later is covered without a change here.
func restartOnly(old, cur *config.Config) []string {
	var out []string
	// reflect over config.Config, the project's own type, exported fields only.
	ov, cv := reflect.ValueOf(*old), reflect.ValueOf(*cur)
	t := ov.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("toml"), ",")[0]
		switch tag {
		case "-", "defaults", "plugin":
			continue
		case "server":
			st := f.Type
			for j := 0; j < st.NumField(); j++ {
				sf := st.Field(j)
				stag := strings.Split(sf.Tag.Get("toml"), ",")[0]
				if stag == "roots" || stag == "policy" || stag == "-" || !sf.IsExported() {
					continue
				}
				if !reflect.DeepEqual(ov.Field(i).Field(j).Interface(), cv.Field(i).Field(j).Interface()) {
					out = append(out, "[server] "+stag)
				}
			}
			continue
		}
		if f.IsExported() && !reflect.DeepEqual(ov.Field(i).Interface(), cv.Field(i).Interface()) {
			out = append(out, "["+tag+"]")
		}
	}
	return out
}
