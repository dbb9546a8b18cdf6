package crd

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"sync"
	"weak"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The definition a file's kind derives (fileSpec) is read at every turn:
// to publish it, to tell whether a definition written or stored is the
// file's, to check the hash annotation. At 1,000 kinds, rendering it each
// time cost as much as publishing. A registry.Resource never changes once
// loaded, and a reload keeps the Resource of an unchanged file, so each
// is rendered once, and forgotten with its Resource.

// derivation is the spec a file's kind derives, and its hash (the
// HashAnnotation of its publication).
type derivation struct {
	spec []byte
	hash string
}

// derivations holds the derivation of each resource still in use, keyed
// weakly, so that a resource no snapshot holds is collected with its
// entry.
var derivations = struct {
	sync.Mutex
	of map[weak.Pointer[registry.Resource]]derivation
}{of: map[weak.Pointer[registry.Resource]]derivation{}}

// derived returns the derivation of the file resource r.
func derived(r *registry.Resource) derivation {
	key := weak.Make(r)
	derivations.Lock()
	d, ok := derivations.of[key]
	derivations.Unlock()
	if ok {
		return d
	}
	spec := fileSpec(r)
	sum := sha256.Sum256(spec)
	d = derivation{spec: spec, hash: hex.EncodeToString(sum[:])}
	derivations.Lock()
	defer derivations.Unlock()
	if _, ok := derivations.of[key]; !ok {
		derivations.of[key] = d
		runtime.AddCleanup(r, forgetDerivation, key)
	}
	return d
}

// forgetDerivation drops the entry of a collected resource.
func forgetDerivation(key weak.Pointer[registry.Resource]) {
	derivations.Lock()
	defer derivations.Unlock()
	delete(derivations.of, key)
}

// isDerived reports whether the CustomResourceDefinition obj declares
// exactly what the file resource r derives: its spec is r's (as JSON; the
// store orders an object's members its own way), and so is its name.
// Such a definition matches r (TestDerivedMatchesItsFile proves it for
// every definition file of the repository), which a definition need not
// be loaded to tell. None is of the core group, which no definition may
// name.
func isDerived(r *registry.Resource, obj []byte) bool {
	if r.Group == "" {
		return false
	}
	fields := gjson.GetManyBytes(obj, "metadata.name", "spec")
	return fields[0].Str == r.Plural+"."+r.Group && jsoneq.Equal([]byte(fields[1].Raw), derived(r).spec)
}
