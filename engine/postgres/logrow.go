package postgres

import (
	"strconv"

	"github.com/dynapi/dynapi/engine"
	"github.com/tidwall/sjson"
)

// gapType is the type of a log row that fills a resourceVersion no write
// will ever commit.
const gapType = "GAP"

// logColumns are the columns of an events row that logRow holds.
const logColumns = `resource_version, resource, namespace, name, type, body, prev_body,
	coalesce(stored_version, '') AS stored_version, coalesce(prev_stored_version, '') AS prev_stored_version,
	remainder, prev_remainder`

// logRow is one row of the events log.
type logRow struct {
	rv                        int64
	resource, namespace, name string
	typ                       string
	body, prev                []byte // jsonb text; nil when NULL
	stored, prevStored        string
	remainder, prevRemainder  []byte // nil when NULL
}

// targets are the Scan destinations of logColumns.
func (r *logRow) targets() []any {
	return []any{&r.rv, &r.resource, &r.namespace, &r.name, &r.typ, &r.body, &r.prev, &r.stored, &r.prevStored, &r.remainder, &r.prevRemainder}
}

// event turns a row (not a GAP) into the watch event, bodies as Get returns them.
func (r *logRow) event() engine.Event {
	ev := engine.Event{Type: engine.EventType(r.typ), PrevStoredVersion: r.prevStored, Object: engine.Object{
		Key:           engine.ObjectKey{Resource: parseResource(r.resource), Namespace: r.namespace, Name: r.name},
		StoredVersion: r.stored, ResourceVersion: r.rv, Body: fromJSONB(r.body), Remainder: remainderFromJSONB(r.remainder)}}
	if r.prev == nil {
		return ev
	}
	ev.Prev, ev.PrevRemainder = fromJSONB(r.prev), remainderFromJSONB(r.prevRemainder)
	if ev.Type == engine.EventDeleted && r.body == nil {
		ev.Object.Body, ev.Object.Remainder = deletedBody(ev.Prev, r.rv), ev.PrevRemainder
	}
	return ev
}

// deletedBody is the object of a DELETED event, which deleteSQL stores
// once, as prev_body: the last state at the delete's resourceVersion rv,
// as kube-apiserver's watch sends it. The stored resourceVersion is in
// plaintext even in a sealed body, so this needs no decryption. A body
// sjson cannot set is not one the database stored: the last state then
// stands as it is.
func deletedBody(prev []byte, rv int64) []byte {
	body, err := sjson.SetBytes(prev, "metadata.resourceVersion", strconv.FormatInt(rv, 10))
	if err != nil {
		return prev
	}
	return body
}

// nullLogRow scans logColumns from the NULL side of an outer join.
type nullLogRow struct {
	rv                             *int64
	resource, namespace, name, typ *string
	body, prev                     []byte
	stored, prevStored             *string
	remainder, prevRemainder       []byte
}

func (r *nullLogRow) targets() []any {
	return []any{&r.rv, &r.resource, &r.namespace, &r.name, &r.typ, &r.body, &r.prev, &r.stored, &r.prevStored, &r.remainder, &r.prevRemainder}
}

// row returns the row, unless it is the NULL row of an empty join.
func (r *nullLogRow) row() (logRow, bool) {
	if r.rv == nil {
		return logRow{}, false
	}
	return logRow{rv: *r.rv, resource: *r.resource, namespace: *r.namespace, name: *r.name, typ: *r.typ,
		body: r.body, prev: r.prev, stored: *r.stored, prevStored: *r.prevStored,
		remainder: r.remainder, prevRemainder: r.prevRemainder}, true
}
