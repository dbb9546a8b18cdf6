package main

import (
	"encoding/json"
	"strconv"
	"strings"
)

// labelValues is how many values each selector label takes: a selector on
// one value of bucket matches 1% of the objects, one of shard 0.1%. The
// second keeps the result's size when the store grows tenfold: 1,000
// objects of a million, as bucket's 1% of 100,000.
var labelValues = map[string]int{"bucket": 100, "shard": 1000}

// widgets makes the objects of a run: Widgets of shop.example.com/v1 in one
// namespace, named w0, w1, ..., labeled bucket=i%100 and shard=i%1000,
// padded to a size.
type widgets struct {
	namespace string
	tags      []string // padding that brings a body to the requested size
}

// widget is the body of one Widget as sent.
type widget struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   widgetMeta `json:"metadata"`
	Spec       widgetSpec `json:"spec"`
}

type widgetMeta struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	Labels          map[string]string `json:"labels"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
}

type widgetSpec struct {
	Color       string   `json:"color"`
	Size        int      `json:"size"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// newWidgets returns the objects of namespace, each about size bytes.
func newWidgets(namespace string, size int) widgets {
	w := widgets{namespace: namespace, tags: []string{}} // [], not null: the schema wants an array
	base := len(w.body(0, 0, ""))
	const tagLen = 64
	for grow := size - base; grow > 0; grow -= tagLen + 3 { // quotes and comma
		w.tags = append(w.tags, strings.Repeat("t", min(tagLen, max(grow-3, 1))))
	}
	return w
}

// name is the name of object i.
func (w widgets) name(i int) string { return "w" + strconv.Itoa(i) }

// labelValue is object i's value of a selector label.
func labelValue(label string, i int) string { return strconv.Itoa(i % labelValues[label]) }

// body is object i at the given revision (which changes spec.size), with
// metadata.resourceVersion set unless rv is empty.
func (w widgets) body(i, revision int, rv string) []byte {
	out, _ := json.Marshal(widget{ // plain strings, ints and maps: cannot fail
		APIVersion: "shop.example.com/v1",
		Kind:       "Widget",
		Metadata: widgetMeta{Name: w.name(i), Namespace: w.namespace, ResourceVersion: rv,
			Labels: map[string]string{"app": "dynapi-bench", "bucket": labelValue("bucket", i),
				"shard": labelValue("shard", i)}},
		Spec: widgetSpec{Color: "green", Size: 1 + revision%100,
			Description: "a widget made by dynapi-bench to measure the server", Tags: w.tags},
	})
	return out
}

// collection is the URL path of the namespace's widgets.
func (w widgets) collection() string {
	return "/apis/shop.example.com/v1/namespaces/" + w.namespace + "/widgets"
}

// path is the URL path of object i.
func (w widgets) path(i int) string { return w.collection() + "/" + w.name(i) }
