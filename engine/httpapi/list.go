package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kubeproto"
	"github.com/dynapi/dynapi/engine/table"
)

// flushBytes is how much of a list is buffered before it goes to the client.
// Below it, a failure can still be answered with a Status.
const flushBytes = 64 << 10

// listWriter streams a list as JSON: items first, list metadata last (JSON
// key order does not matter to clients), so that objects go to the socket as
// PostgreSQL returns them instead of being held all at once. A list in
// protobuf is held until it ends: its envelope starts with its length.
type listWriter struct {
	w       http.ResponseWriter
	format  format
	table   *table.Builder  // set for formatTable
	proto   *kubeproto.List // set for formatProtobuf
	buf     []byte
	items   int
	flushed bool
	partial []byte // for formatMeta: partialHead of each item
}

// newListWriter starts a list, or a Table when tb is set.
func newListWriter(w http.ResponseWriter, f format, tb *table.Builder, apiVersion, listKind string) *listWriter {
	lw := &listWriter{w: w, format: f, table: tb}
	if f.kind == formatProtobuf {
		lw.proto = kubeproto.NewList(apiVersion, listKind)
		return lw
	}
	if tb != nil {
		lw.buf = tb.AppendHeader(lw.buf)
		return lw
	}
	if f.kind == formatMeta {
		apiVersion, listKind = f.meta, "PartialObjectMetadataList"
		lw.partial = partialHead(f.meta)
	}
	lw.buf = append(lw.buf, `{"apiVersion":`...)
	lw.buf = strconv.AppendQuote(lw.buf, apiVersion)
	lw.buf = append(lw.buf, `,"kind":`...)
	lw.buf = strconv.AppendQuote(lw.buf, listKind)
	lw.buf = append(lw.buf, `,"items":[`...)
	return lw
}

// add appends one object (a row, for a Table; for a
// PartialObjectMetadataList, obj is the object's metadata).
func (lw *listWriter) add(obj []byte) error {
	if lw.proto != nil {
		return lw.proto.Add(obj)
	}
	if lw.items > 0 {
		lw.buf = append(lw.buf, ',')
	}
	lw.items++
	switch {
	case lw.table != nil:
		lw.buf = lw.table.AppendRow(lw.buf, obj)
	case lw.format.kind == formatMeta:
		lw.buf = appendPartialWith(lw.buf, lw.partial, obj) // obj is the metadata (Service.ListMetadata)
	default:
		lw.buf = append(lw.buf, obj...)
	}
	if lw.format.kind != formatYAML && len(lw.buf) >= flushBytes {
		return lw.flush()
	}
	return nil
}

func (lw *listWriter) flush() error {
	if !lw.flushed {
		lw.w.Header().Set("Content-Type", lw.format.contentType())
		lw.w.WriteHeader(http.StatusOK)
		lw.flushed = true
	}
	_, err := lw.w.Write(lw.buf)
	lw.buf = lw.buf[:0]
	return err
}

// finish writes the list metadata and whatever is still buffered.
func (lw *listWriter) finish(m engine.ListMeta) error {
	if lw.proto != nil {
		body, err := lw.proto.Bytes(listMetaJSON(m))
		if err != nil {
			return err
		}
		lw.buf = body
		return lw.flush()
	}
	if lw.table != nil {
		lw.buf = lw.table.AppendFooter(lw.buf, listMetaJSON(m))
	} else {
		lw.buf = append(lw.buf, `],"metadata":`...)
		lw.buf = append(lw.buf, listMetaJSON(m)...)
		lw.buf = append(lw.buf, '}')
	}
	if lw.format.kind == formatYAML {
		out, err := yaml.JSONToYAML(lw.buf)
		if err != nil {
			return err
		}
		lw.w.Header().Set("Content-Type", "application/yaml")
		_, err = lw.w.Write(out)
		return err
	}
	return lw.flush()
}

type listMeta struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

func listMetaJSON(m engine.ListMeta) []byte {
	out, _ := json.Marshal(listMeta{ResourceVersion: strconv.FormatInt(m.ResourceVersion, 10),
		Continue: m.Continue, RemainingItemCount: m.RemainingItemCount}) // a struct of strings and ints always encodes
	return out
}
