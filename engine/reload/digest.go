package reload

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io/fs"
	"maps"
	"slices"

	"github.com/dynapi/dynapi/engine/registry"
)

// digestFS hashes every file read through it, name and contents, in the
// order read. Two builds that read the same files with the same contents
// end with the same digest: that is how the log tells a build that changed
// something from one that did not (a start builds three times: the first
// load, the watcher's, and the definitions created through the API).
type digestFS struct {
	fs.FS
	h hash.Hash
}

// ReadFile reads name and adds it to the digest.
func (d digestFS) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(d.FS, name)
	if err != nil {
		return b, err
	}
	writeDigest(d.h, name, b)
	return b, nil
}

// digestAPI adds the definitions created through the API to h, by name,
// each by its hash.
func digestAPI(h hash.Hash, sums map[string][sha256.Size]byte) {
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		sum := sums[name]
		writeDigest(h, "api/"+name, sum[:])
	}
}

// digestRules adds the conversion rules created through the API to h.
func digestRules(h hash.Hash, rules map[string][]byte) {
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		writeDigest(h, registry.APIRulesPrefix+name, rules[name])
	}
}

// writeDigest adds a named part to h, each field length-prefixed so that
// no two different sequences of parts write the same bytes.
func writeDigest(h hash.Hash, name string, b []byte) {
	for _, field := range [][]byte{[]byte(name), b} {
		h.Write(binary.AppendUvarint(nil, uint64(len(field))))
		h.Write(field)
	}
}
