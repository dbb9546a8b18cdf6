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
// stored, with metadata.resourceVersion set to rv as a string.
func stamped(obj engine.Object, rv int64) (engine.Object, error) {
	body, err := meta.SetResourceVersion(obj.Body, rv)
	if err != nil {
		return engine.Object{}, err
	}
	obj.Body, obj.ResourceVersion = body, rv
	return obj, nil
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
