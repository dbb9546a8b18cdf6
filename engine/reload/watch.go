package reload

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	// fsnotify rather than polling: changes are seen at once, at no cost in
	// between. It wraps inotify (and its equivalents) with the hard parts
	// handled: moves reported as renames and creates, watches dropped with
	// their folder, and the editors' atomic saves (write a temporary file,
	// rename it over the old one) seen as events in the folder.
	"github.com/fsnotify/fsnotify"
)

// rewatchInterval is how often a watched root folder that went away
// (deleted, or replaced by a deploy) is looked for again.
const rewatchInterval = time.Second

// Run watches the schemas and conversions folders, and their subfolders,
// until ctx ends, and builds a snapshot after each burst of changes (see
// Options.Debounce). It returns an error only when it cannot watch at all.
func (r *Reloader) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch definition files: %w", err)
	}
	defer w.Close()
	for _, root := range r.roots() {
		r.watchTree(w, root)
	}
	// Files changed between the last build and the watches are seen now.
	_ = r.Reload() // logged
	r.loop(ctx, w)
	return nil
}

// roots are the folders to watch.
func (r *Reloader) roots() []string {
	if r.conversionsDir == "" {
		return []string{r.schemasDir}
	}
	return []string{r.schemasDir, r.conversionsDir}
}

// loop turns events into builds until ctx ends. A build waits for
// Debounce without events, but never more than ten Debounces after the
// first one, so that a steady trickle of changes still takes effect.
func (r *Reloader) loop(ctx context.Context, w *fsnotify.Watcher) {
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()     // armed by the first change
	var since time.Time // the first change the next build waits for; zero when none waits
	rewatch := time.NewTicker(rewatchInterval)
	defer rewatch.Stop()
	schedule := func() {
		now := time.Now()
		if since.IsZero() {
			since = now
		}
		debounce.Reset(min(r.opts.Debounce, since.Add(10*r.opts.Debounce).Sub(now)))
	}
	for {
		select {
		case <-ctx.Done():
			debounce.Stop()
			return
		case ev := <-w.Events:
			if r.handle(w, ev) {
				schedule()
			}
		case err := <-w.Errors:
			// The kernel's queue overflowed, or the like: changes may have
			// been missed, and a build sees them all.
			r.logger.Warn("watching definition files", "err", err)
			schedule()
		case <-rewatch.C:
			if r.rewatchRoots(w) {
				schedule()
			}
		case <-debounce.C:
			since = time.Time{}
			_ = r.Reload() // logged
		}
	}
}

// handle follows one event: a new folder is watched too. It reports
// whether the event may change the definitions; a change of mode cannot.
func (r *Reloader) handle(w *fsnotify.Watcher, ev fsnotify.Event) bool {
	if ev.Has(fsnotify.Create) && !skipped(filepath.Base(ev.Name)) {
		r.watchTree(w, ev.Name)
	}
	return ev.Op != fsnotify.Chmod
}

// skipped reports whether the registry skips a folder of this name:
// examples (testdata) and hidden folders (VCS, editors).
func skipped(name string) bool { return name == "testdata" || strings.HasPrefix(name, ".") }

// watchTree watches dir and every folder under it but those the registry
// skips; a file is not watched on its own. Errors are logged: the watch
// limit may be reached, and what is watched still works.
func (r *Reloader) watchTree(w *fsnotify.Watcher, dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.IsDir():
			return nil // gone, or unreadable: the build reports it
		case path != dir && skipped(d.Name()):
			return fs.SkipDir
		}
		if err := w.Add(path); err != nil {
			r.logger.Warn("watching definition folder", "dir", path, "err", err)
		}
		return nil
	})
}

// rewatchRoots watches again the root folders whose watch went away with
// them, once they are back; it reports whether it found one back.
func (r *Reloader) rewatchRoots(w *fsnotify.Watcher) bool {
	found := false
	for _, root := range r.roots() {
		root = filepath.Clean(root) // as fsnotify keeps it
		if slices.Contains(w.WatchList(), root) {
			continue
		}
		r.watchTree(w, root)
		found = found || slices.Contains(w.WatchList(), root)
	}
	return found
}
