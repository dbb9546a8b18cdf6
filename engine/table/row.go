package table

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// AppendRow appends the row of one object (JSON, as served in the requested
// version): `{"cells":[name, column values...],"object":...}`. dst must not
// share memory with obj.
func (b *Builder) AppendRow(dst, obj []byte) []byte {
	root := gjson.Parse(jsonscan.View(obj))
	var buf [8]gjson.Result // enough for most tables, without allocating
	tops := buf[:]
	if len(b.tops) > len(buf) {
		tops = make([]gjson.Result, len(b.tops))
	}
	tops = tops[:len(b.tops)]
	findKeys(root, b.tops, tops)
	md := tops[0]
	dst = append(dst, `{"cells":[`...)
	dst = appendName(dst, md)
	for i := range b.cols {
		c := &b.cols[i]
		var v gjson.Result
		var found bool
		if c.top >= 0 {
			v, found = c.path.first(tops[c.top], 1)
		} else {
			v, found = c.path.first(root, 0)
		}
		dst = append(dst, ',')
		dst = appendCell(dst, c.typ, v, found, b.now)
	}
	dst = append(dst, `],"object":`...)
	switch b.include {
	case includeNone:
		dst = append(dst, "null"...)
	case includeObject:
		dst = append(dst, obj...)
	default:
		dst = append(dst, b.partial...)
		dst = appendMetadata(dst, md)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendName appends the Name cell: metadata.name, "" when there is none.
func appendName(dst []byte, md gjson.Result) []byte {
	if name := lookupKey(md, "name", "name"); name.Type == gjson.String {
		return append(dst, name.Raw...)
	}
	return append(dst, `""`...)
}

// appendMetadata appends a PartialObjectMetadata's metadata. Object metadata
// was written through metav1.ObjectMeta (engine/meta), so its bytes are
// already what re-encoding it would give, and are copied as they are.
func appendMetadata(dst []byte, md gjson.Result) []byte {
	if !md.IsObject() {
		return append(dst, "{}"...)
	}
	return append(dst, md.Raw...)
}
