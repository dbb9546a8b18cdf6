package reload

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// report logs what a build changed and updates the metrics.
func (r *Reloader) report(prev, next *build) {
	r.logProblems(prev.problems, next.problems)
	r.logResources(prev.snap, next.snap)
	for _, key := range next.unmatched {
		if !slices.Contains(prev.unmatched, key) {
			r.logger.Warn("runtime-config key matches no API group or version", "key", key)
		}
	}
	r.metrics.observe(next, r.opts.Now(), func(p registry.Problem) string { return r.pathOf(p.File, p.Conversion) })
	level := slog.LevelInfo
	if next.digest == prev.digest {
		level = slog.LevelDebug // it read what the build before it read
	}
	r.logger.Log(context.Background(), level, "definitions loaded", "schemas", r.schemasDir, "conversions", r.conversionsDir,
		"resources", len(next.snap.Resources()), "problems", registry.Failures(next.problems), "warnings", len(next.problems)-registry.Failures(next.problems))
}

// logProblems logs each problem once, at the first build that finds it,
// so that the log tells what went wrong when, not the same story at every build.
func (r *Reloader) logProblems(prev, next []registry.Problem) {
	for _, p := range next {
		if !slices.Contains(prev, p) {
			attrs := []any{"file", r.pathOf(p.File, p.Conversion)}
			if p.Line > 0 {
				attrs = append(attrs, "line", p.Line)
			}
			msg := "definition refused"
			if p.Warning {
				msg = "definitions warning"
			}
			r.logger.Warn(msg, append(attrs, "reason", p.Reason)...)
		}
	}
}

// logResources logs the resources a build added, removed or kept from
// the build before it.
func (r *Reloader) logResources(prev, next *registry.Snapshot) {
	before := map[engine.GroupResource]*registry.Resource{}
	for _, res := range prev.Resources() {
		before[res.GroupResource()] = res
	}
	for _, res := range next.Resources() {
		old, ok := before[res.GroupResource()]
		delete(before, res.GroupResource())
		file := r.pathOf(res.File, false)
		switch {
		case !ok:
			r.logger.Info("definition added", "resource", res.GroupResource(), "file", file)
		case next.Stale(res) && !prev.Stale(old):
			r.logger.Warn("previous definition serves on, as its file was refused", "resource", res.GroupResource(), "file", file)
		}
		if len(res.Unenforced) > 0 && (!ok || !slices.Equal(res.Unenforced, old.Unenforced)) {
			r.logger.Warn("definition declares what dynapi does not do yet", "resource", res.GroupResource(), "file", file,
				"unenforced", strings.Join(res.Unenforced, "; "))
		}
	}
	for gr, res := range before {
		r.logger.Info("definition removed; its stored objects are kept", "resource", gr, "file", r.pathOf(res.File, false))
	}
}
