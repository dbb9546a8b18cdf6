package postgres

import (
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
	"github.com/tidwall/gjson"
)

// columns are the values a write derives from an object's body.
type columns struct {
	uid    string // metadata.uid; "" stores NULL
	labels string // metadata.labels as JSON; "{}" when none
}

// columnsOf reads the indexed columns from body, which the caller has
// validated as JSON.
func columnsOf(body []byte) columns {
	meta := gjson.Get(jsonscan.View(body), "metadata") // in place: what is kept lives no longer than body, which nothing writes
	c := columns{uid: meta.Get("uid").String(), labels: "{}"}
	if labels := meta.Get("labels"); labels.IsObject() {
		c.labels = labels.Raw
	}
	return c
}

// stamped returns obj at resourceVersion rv: the same body the database
// stored, with metadata.resourceVersion set to rv as a string. at, when
// found, is where rv goes in obj.Body: the slot the statement filled.
func stamped(obj engine.Object, rv int64, at rvSlot) (engine.Object, error) {
	if at.found {
		var buf [24]byte
		obj.Body, obj.ResourceVersion = at.Fill(obj.Body, meta.AppendResourceVersion(buf[:0], rv)), rv
		return obj, nil
	}
	body, err := meta.SetResourceVersion(obj.Body, rv)
	if err != nil {
		return engine.Object{}, err
	}
	obj.Body, obj.ResourceVersion = body, rv
	return obj, nil
}

// rvSlot is where a write's statement splices the resourceVersion it
// draws into the body it stores (body_at_resource_version, migration
// 0010), found once for the statement and the answer alike.
type rvSlot struct {
	meta.Slot
	found bool
}

// slotOf finds the slot of body's resourceVersion.
func slotOf(body []byte) rvSlot {
	s, ok := meta.ResourceVersionSlot(body)
	return rvSlot{s, ok}
}

// args are the slot as body_at_resource_version's last three arguments;
// slot_at is -1 when there is none.
func (s rvSlot) args() (at, cut int, prefix string) {
	if !s.found {
		return -1, 0, ""
	}
	return s.At, s.Cut, s.Prefix
}

// answerSlot is the slot of the body a write answers with: the stored
// body's, when the body is stored as it is (not encrypted).
func answerSlot(stored rvSlot, t Transformer) rvSlot {
	if t != nil {
		return rvSlot{}
	}
	return stored
}

// resourceColumn renders the resource column: "resource.group", or
// "resource" for the core group.
func resourceColumn(gr engine.GroupResource) string {
	return gr.String()
}

// parseResource is the inverse of resourceColumn: resource names have no
// dots, so the group is everything after the first one.
func parseResource(s string) engine.GroupResource {
	resource, group, _ := strings.Cut(s, ".")
	return engine.GroupResource{Group: group, Resource: resource}
}
