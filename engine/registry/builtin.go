package registry

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dynapi/dynapi/engine/builtin"
)

// BuiltinFilePrefix starts the File of every Resource (and Problem) that
// comes from the built-in definitions (package builtin), which every load
// reads before the definition files: "builtin:core/configmap.yaml".
const BuiltinFilePrefix = "builtin:"

// IsBuiltinFile reports whether a Resource's or Problem's File names a
// built-in definition.
func IsBuiltinFile(file string) bool { return strings.HasPrefix(file, BuiltinFilePrefix) }

// builtinLoad is the result of reading the built-in definitions with one
// RuntimeConfig: they are compiled once per process and configuration,
// not on every reload or CustomResourceDefinition check.
type builtinLoad struct {
	candidates []candidate
	problems   []Problem
}

var builtinLoads sync.Map // RuntimeConfig.key() → *builtinLoad

// loadBuiltins adds the built-in definitions to the candidates, first,
// unless the options leave them out. Each load gets its own copy of every
// Resource (sharing the compiled schemas), since a load attaches
// conversion rules to the resources it serves.
func (l *loader) loadBuiltins() {
	if l.opts.WithoutBuiltins {
		return
	}
	b := readBuiltins(l.opts.RuntimeConfig)
	for _, p := range b.problems {
		l.report(p)
	}
	for _, c := range b.candidates {
		c.res = c.res.fresh()
		l.candidates = append(l.candidates, c)
	}
}

func readBuiltins(rc RuntimeConfig) *builtinLoad {
	key := rc.key()
	if b, ok := builtinLoads.Load(key); ok {
		return b.(*builtinLoad)
	}
	sub := newLoader(builtin.FS, LoadOptions{RuntimeConfig: rc, WithoutBuiltins: true})
	files, problems := definitionFiles(builtin.FS)
	for _, p := range problems {
		sub.report(p)
	}
	for _, f := range files {
		src, err := fs.ReadFile(builtin.FS, f)
		if err != nil {
			sub.report(Problem{File: BuiltinFilePrefix + f, Reason: err.Error()})
			continue
		}
		sub.loadSource(BuiltinFilePrefix+f, src, path.Ext(f) == ".json")
	}
	b, _ := builtinLoads.LoadOrStore(key, &builtinLoad{candidates: sub.candidates, problems: sub.problems})
	return b.(*builtinLoad)
}

// key identifies a RuntimeConfig's entries, whatever the order they were given in.
func (c RuntimeConfig) key() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(c.entries)) {
		b.WriteString(k + "=" + strconv.FormatBool(c.entries[k]) + ",")
	}
	return b.String()
}

// claimBuiltins registers the names of the built-in definitions before any
// other: no definition file or CustomResourceDefinition can take them.
func (l *loader) claimBuiltins() {
	for _, c := range l.candidates {
		if IsBuiltinFile(c.res.File) {
			l.claim(c)
		}
	}
}
