package lifecycle

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwasm/mcpwasm/host/source"
)

// Watching: serve watches the folders it was given, the folders holding
// the plugin files it was given or the config lists, and the config file,
// with fsnotify (inotify on Linux). Folders rather than files, because
// editors and build tools often replace a file by renaming a new one over
// it, which ends a watch on the file itself.
//
// Events are debounced: a path is acted on once it has had no event for
// quietPeriod and its size and modification time have not changed across
// one more quietPeriod. A copy still being written keeps producing events,
// so it is not loaded half-written; one that stalls for longer is loaded,
// fails (a truncated module does not compile), keeps the previous version
// serving, and is loaded again on its next event.

// quietPeriod is how long a path must be left alone before it is loaded.
const quietPeriod = 300 * time.Millisecond

// interests are the paths a reload acts on: any .wasm in dirs, and files.
type interests struct {
	dirs  map[string]bool // absolute folders given as arguments
	files map[string]bool // absolute plugin files given or listed, and the config
	// targets are what each of files resolved to (through its links)
	// when last looked at.
	targets map[string]string
	// policy are the policy files and schema ([server.policy]): a change
	// reloads the policies alone.
	policy map[string]bool
}

func (in interests) wants(path string) bool {
	return in.files[path] || (in.dirs[filepath.Dir(path)] && strings.HasSuffix(path, ".wasm"))
}

// relinked lists the files of interest in path's folder, other than path,
// that now resolve to another file: an event on a link they go through
// (a ConfigMap's ..data renamed over) changed them without an event of
// their own.
func (in interests) relinked(path string) []string {
	var out []string
	for f := range in.files {
		if f == path || filepath.Dir(f) != filepath.Dir(path) {
			continue
		}
		if now := resolve(f); now != in.targets[f] {
			in.targets[f] = now
			out = append(out, f)
		}
	}
	return out
}

// resolve is path with its links followed, or path if that fails.
func resolve(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	return path
}

// folders are the folders to watch for these interests.
func (in interests) folders() map[string]bool {
	out := map[string]bool{}
	for d := range in.dirs {
		out[d] = true
	}
	for f := range in.files {
		out[filepath.Dir(f)] = true
	}
	return out
}

// interests lists what the arguments and the config in force name. r.mu
// must be held (r.cfg).
func (r *reloader) interests() interests {
	in := interests{dirs: map[string]bool{}, files: map[string]bool{}, targets: map[string]string{}, policy: policyFiles(r.cfg)}
	for f := range in.policy {
		in.files[f] = true
	}
	for _, a := range r.args {
		if source.IsRemote(a) {
			continue // fetched, not watched
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			in.dirs[absPath(a)] = true
		} else {
			in.files[absPath(a)] = true
		}
	}
	if r.cfgPath != "" {
		in.files[absPath(r.cfgPath)] = true
	}
	if r.lockFile != "" {
		in.files[absPath(r.lockFile)] = true // approvals (mcpwasm trust)
	}
	for _, p := range r.cfg.Plugins {
		if source.IsRemote(p.Path) {
			continue
		}
		in.files[absPath(p.Path)] = true
	}
	for f := range in.files {
		in.targets[f] = resolve(f)
	}
	return in
}

// watcher follows the folders of a reloader's interests.
type watcher struct {
	fs      *fsnotify.Watcher
	watched map[string]bool
	first   interests // as the watch began, before the initial load
}

// startWatch begins watching, before the initial load starts, so a change
// made while plugins compile is not missed (its event waits in the queue).
// Without a watcher (inotify limits) serve goes on, and says so: SIGHUP
// still reloads.
func (r *reloader) startWatch() *watcher {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		r.c.logger.Warn("not watching plugin files: reload with SIGHUP", "err", err)
		return nil
	}
	w := &watcher{fs: fw, watched: map[string]bool{}}
	r.mu.Lock()
	w.first = r.interests()
	r.mu.Unlock()
	r.follow(w, w.first)
	return w
}

// follow watches the folders in needs and stops watching the others.
func (r *reloader) follow(w *watcher, in interests) {
	if w == nil {
		return
	}
	want := in.folders()
	for d := range want {
		if w.watched[d] {
			continue
		}
		if err := w.fs.Add(d); err != nil {
			r.c.logger.Warn("not watching a folder: changes in it need SIGHUP", "folder", d, "err", err)
			continue
		}
		w.watched[d] = true
		r.c.logger.Debug("watching for plugin changes", "folder", d)
	}
	for d := range w.watched {
		if !want[d] {
			w.fs.Remove(d)
			delete(w.watched, d)
		}
	}
}

// listen takes SIGHUP from now on (its default action ends the process),
// to be acted on once run starts; one waiting signal is kept.
func (r *reloader) listen() {
	if r.hup == nil {
		r.hup = make(chan os.Signal, 1)
		signal.Notify(r.hup, syscall.SIGHUP)
	}
}

// run adopts what the initial load served, then reloads on file events
// and SIGHUP until ctx ends.
func (r *reloader) run(ctx context.Context, specs []Spec, w *watcher) {
	r.adopt(specs)
	r.listen()
	var events <-chan fsnotify.Event
	var errs <-chan error
	var first interests
	if w != nil {
		defer w.fs.Close()
		events, errs = w.fs.Events, w.fs.Errors
		first = w.first // a link swapped during the initial load is still a change
	}
	in := r.refollow(w, first)
	cfgFile := ""
	if r.cfgPath != "" {
		cfgFile = absPath(r.cfgPath)
	}
	pending := map[string]bool{}    // paths with events not acted on yet
	lastSeen := map[string]string{} // a pending path's size and time at the last look
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.hup:
			if r.onHUP != nil {
				r.onHUP()
			}
			r.c.logger.Info("SIGHUP: reloading the config and plugins")
			r.reloadConfig(ctx, "SIGHUP")
			in = r.refollow(w, in)
			continue
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			path := absPath(ev.Name)
			if in.wants(path) {
				pending[path] = true
				timer.Reset(quietPeriod)
			}
			for _, f := range in.relinked(path) {
				pending[f] = true
				timer.Reset(quietPeriod)
			}
			continue
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			r.c.logger.Warn("file watch error: some changes may need SIGHUP", "err", err)
			continue
		case <-timer.C:
		}
		// The timer fired: act on the paths that settled.
		settled := map[string]bool{}
		for path := range pending {
			if sig := statSignature(path); sig == lastSeen[path] {
				settled[path] = true
				delete(pending, path)
				delete(lastSeen, path)
			} else {
				lastSeen[path] = sig
			}
		}
		if len(pending) > 0 {
			timer.Reset(quietPeriod)
		}
		if len(settled) == 0 {
			continue
		}
		policyChanged := false
		for f := range settled {
			if in.policy[f] {
				policyChanged = true
				delete(settled, f)
			}
		}
		lockChanged := r.lockFile != "" && settled[absPath(r.lockFile)]
		delete(settled, absPath(r.lockFile))
		// Changes that settle together are each acted on: a config reload
		// reads the policies, the approvals and every plugin again; without
		// one, a policy change reloads the policies, and a lock file change
		// (serve's own first-use record, or mcpwasm trust) every plugin,
		// else the changed plugins are. cmd/mcpwasm's TestPolicyHotReload
		// fails when a lock file write settling with a policy change hides
		// it.
		if settled[cfgFile] {
			r.reloadConfig(ctx, "config file changed")
		} else {
			if lockChanged {
				r.approvals(ctx)
			}
			if policyChanged {
				r.mu.Lock()
				r.reloadPolicy(r.cfg, "policy file changed")
				r.mu.Unlock()
			}
			if len(settled) > 0 && !lockChanged {
				r.rescan(ctx, settled)
			}
		}
		in = r.refollow(w, in)
	}
}

// refollow recomputes the interests after a reload (the config may list
// other files now) and watches their folders. A file that stays of
// interest keeps the target it had in old: a link swapped while the reload
// ran (its event still queued) must still read as a change when that event
// is taken, not be adopted here unseen.
func (r *reloader) refollow(w *watcher, old interests) interests {
	r.mu.Lock()
	in := r.interests()
	r.mu.Unlock()
	for f, t := range old.targets {
		if in.files[f] {
			in.targets[f] = t
		}
	}
	r.follow(w, in)
	return in
}

// statSignature is what must stay the same for a file to count as
// settled: its size and modification time, or its absence.
func statSignature(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	return fmt.Sprintf("%s/%d", st.ModTime(), st.Size())
}
