package table

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// The Table versions a client may ask for, as apiVersion values.
const (
	APIVersionV1      = "meta.k8s.io/v1"
	APIVersionV1beta1 = "meta.k8s.io/v1beta1"
)

// The includeObject values; "" means includeMetadata.
const (
	includeNone     = "None"
	includeMetadata = "Metadata"
	includeObject   = "Object"
)

// Builder writes the Table of one request. It is immutable once built, so it
// is safe for concurrent use.
type Builder struct {
	apiVersion string
	include    string
	now        time.Time
	cols       []column
	// tops are the keys of the object that columns start with, metadata
	// first: a row finds them all in one pass over the object instead of
	// one per column.
	tops    []string
	defs    []byte // the JSON array of column definitions
	partial []byte // a PartialObjectMetadata up to its metadata value
}

// New prepares a Table of the given printer columns (a version's
// PrinterColumns), in apiVersion APIVersionV1 or APIVersionV1beta1, with each
// row's object as include asks (the includeObject query parameter: None,
// Metadata, Object, or "" for Metadata). Ages are computed at now.
//
// Errors: BadRequest for an unknown includeObject; NotAcceptable for another
// apiVersion.
func New(columns []registry.PrinterColumn, apiVersion, include string, now time.Time) (*Builder, error) {
	if apiVersion != APIVersionV1 && apiVersion != APIVersionV1beta1 {
		return nil, engine.Errorf(engine.CodeNotAcceptable, "no Table exists in group version %s", apiVersion)
	}
	switch include {
	case "":
		include = includeMetadata
	case includeNone, includeMetadata, includeObject:
	default:
		return nil, engine.Errorf(engine.CodeBadRequest, "Unable to convert to Table as requested: "+
			"includeObject: Invalid value: %q: must be 'Metadata', 'Object', 'None', or empty", include)
	}
	defs, cols := compileColumns(columns)
	defsJSON, err := json.Marshal(defs)
	if err != nil {
		return nil, fmt.Errorf("encode column definitions: %w", err) // strings and ints: unreachable
	}
	b := &Builder{apiVersion: apiVersion, include: include, now: now, cols: cols, defs: defsJSON}
	b.indexTops()
	b.partial = append(b.partial, `{"kind":"PartialObjectMetadata","apiVersion":`...)
	b.partial = strconv.AppendQuote(b.partial, apiVersion)
	b.partial = append(b.partial, `,"metadata":`...)
	return b, nil
}

// AppendHeader appends the start of a list's Table, up to the opening of its
// rows: `{"kind":"Table","apiVersion":...,"columnDefinitions":[...],"rows":[`.
// Rows follow, separated by commas, then AppendFooter.
func (b *Builder) AppendHeader(dst []byte) []byte {
	dst = b.appendStart(dst)
	return b.appendRowsStart(dst)
}

// AppendFooter appends the end of a list's Table: the list metadata
// (a metav1.ListMeta's JSON: resourceVersion, continue, remainingItemCount)
// after the rows, since a streamed list only knows it at the end.
func (b *Builder) AppendFooter(dst, listMeta []byte) []byte {
	dst = append(dst, `],"metadata":`...)
	if len(listMeta) == 0 {
		listMeta = []byte("{}")
	}
	dst = append(dst, listMeta...)
	return append(dst, '}')
}

// Single returns the Table of one object, as a GET of it answers: one row,
// and the object's resourceVersion in the Table's metadata.
func (b *Builder) Single(obj []byte) []byte {
	md := gjson.Parse(jsonscan.View(obj)).Get("metadata") // read in place; what is kept is copied
	dst := b.appendStart(nil)
	dst = append(dst, `,"metadata":{`...)
	if rv := md.Get("resourceVersion"); rv.Type == gjson.String && rv.Str != "" {
		dst = append(dst, `"resourceVersion":`...)
		dst = append(dst, rv.Raw...)
	}
	dst = append(dst, '}')
	dst = b.appendRowsStart(dst)
	dst = b.AppendRow(dst, obj)
	return append(dst, "]}"...)
}

// indexTops fills b.tops and each column's top.
func (b *Builder) indexTops() {
	b.tops = []string{"metadata"}
	for i := range b.cols {
		key, ok := b.cols[i].path.topKey()
		if !ok {
			continue
		}
		b.cols[i].top = slices.Index(b.tops, key)
		if b.cols[i].top < 0 {
			b.cols[i].top = len(b.tops)
			b.tops = append(b.tops, key)
		}
	}
}

func (b *Builder) appendStart(dst []byte) []byte {
	dst = append(dst, `{"kind":"Table","apiVersion":`...)
	return strconv.AppendQuote(dst, b.apiVersion)
}

func (b *Builder) appendRowsStart(dst []byte) []byte {
	dst = append(dst, `,"columnDefinitions":`...)
	dst = append(dst, b.defs...)
	return append(dst, `,"rows":[`...)
}
