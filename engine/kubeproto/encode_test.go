package kubeproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// clientGoSerializer reads protobuf as client-go does, with every kind of
// the table.
var clientGoSerializer = sync.OnceValues(func() (*protobuf.Serializer, error) {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"}) // Status
	err := errors.Join(corev1.AddToScheme(scheme), coordinationv1.AddToScheme(scheme), eventsv1.AddToScheme(scheme),
		rbacv1.AddToScheme(scheme), apiextensionsv1.AddToScheme(scheme))
	return protobuf.NewSerializer(scheme, scheme), err
})

// decodeAsClientGo decodes body as client-go does, apiVersion and kind set.
func decodeAsClientGo(t *testing.T, body []byte) runtime.Object {
	t.Helper()
	dec, err := clientGoSerializer()
	if err != nil {
		t.Fatal(err)
	}
	obj, gvk, err := dec.Decode(body, nil, nil)
	if err != nil {
		t.Fatalf("client-go cannot decode %q: %v", body, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	return obj
}

// typedJSON is obj as its generated type holds it: what a protobuf round
// trip must give back.
func typedJSON(t *testing.T, obj any) []byte {
	t.Helper()
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every object in testdata/objects (one per kind that has a protobuf form)
// is encoded so that client-go's decoder reads the same object back, and
// ToJSON reads it back too (what client-go sends is what it reads).
func TestFromJSON(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/objects/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/objects")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			body, err := FromJSON(in)
			if err != nil {
				t.Fatalf("FromJSON: %v", err)
			}
			got := decodeAsClientGo(t, body)
			want := typedJSONOf(t, in, got)
			jsoneq.Assert(t, typedJSON(t, got), string(want))
			back, err := ToJSON(body)
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			jsoneq.Assert(t, back, string(want))
		})
	}
}

// typedJSONOf is in as like's type holds it, read from JSON.
func typedJSONOf(t *testing.T, in []byte, like runtime.Object) []byte {
	t.Helper()
	obj := reflect.New(reflect.TypeOf(like).Elem()).Interface()
	if err := json.Unmarshal(in, obj); err != nil {
		t.Fatal(err)
	}
	return typedJSON(t, obj)
}

func TestFromJSONNoProtobufForm(t *testing.T) {
	t.Parallel()
	for _, obj := range []string{
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","data":"not a map"}`,
	} {
		if body, err := FromJSON([]byte(obj)); err == nil {
			t.Errorf("FromJSON(%s) = %q, want an error", obj, body)
		}
	}
}

func TestEncodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		gvk  engine.GroupVersionKind
		want bool
	}{
		{engine.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true},
		{engine.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, true},
		{engine.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, true},
		{engine.GroupVersionKind{Group: "shop.example.com", Version: "v1", Kind: "Widget"}, false},
		{engine.GroupVersionKind{Group: "coordination.k8s.io", Version: "v2", Kind: "Lease"}, false},
	}
	for _, tt := range tests {
		if got := Encodes(tt.gvk); got != tt.want {
			t.Errorf("Encodes(%v) = %v, want %v", tt.gvk, got, tt.want)
		}
	}
}

// A list built item by item is the list client-go decodes.
func TestList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, apiVersion, listKind string
		items                      []string // fixtures
		meta                       string
	}{
		{"configmaps", "v1", "ConfigMapList", []string{"configmap.json", "configmap.json"},
			`{"resourceVersion":"42","continue":"abc","remainingItemCount":7}`},
		{"crds", "apiextensions.k8s.io/v1", "CustomResourceDefinitionList", []string{"crd.json"}, `{"resourceVersion":"9"}`},
		{"empty", "coordination.k8s.io/v1", "LeaseList", nil, `{"resourceVersion":"1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := NewList(tt.apiVersion, tt.listKind)
			want := `{"apiVersion":"` + tt.apiVersion + `","kind":"` + tt.listKind + `","metadata":` + tt.meta + `,"items":[`
			for i, name := range tt.items {
				item, err := os.ReadFile(filepath.Join("testdata/objects", name))
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Add(item); err != nil {
					t.Fatalf("Add: %v", err)
				}
				typed, err := ToJSON(mustFromJSON(t, item))
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					want += ","
				}
				want += string(withoutTypeMeta(t, typed)) // list items carry no apiVersion and kind in protobuf
			}
			want += "]}"
			if len(tt.items) == 0 {
				want = strings.Replace(want, "[]", "null", 1) // protobuf has no empty list, nor has kube's
			}
			body, err := l.Bytes([]byte(tt.meta))
			if err != nil {
				t.Fatalf("Bytes: %v", err)
			}
			got := decodeAsClientGo(t, body)
			jsoneq.Assert(t, typedJSON(t, got), want)
		})
	}
}

func mustFromJSON(t *testing.T, obj []byte) []byte {
	t.Helper()
	body, err := FromJSON(obj)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func withoutTypeMeta(t *testing.T, obj []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	out, _ := json.Marshal(m)
	return out
}

// Watch frames read with client-go's framer and decoders give back the
// events, bookmarks and errors as sent.
func TestWatchEvent(t *testing.T) {
	t.Parallel()
	cm, err := os.ReadFile("testdata/objects/configmap.json")
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("testdata/objects/status.json")
	if err != nil {
		t.Fatal(err)
	}
	events := []struct {
		eventType string
		obj       []byte
	}{
		{"ADDED", cm},
		{"BOOKMARK", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"43","annotations":{"k8s.io/initial-events-end":"true"}}}`)},
		{"ERROR", status},
	}
	var stream []byte
	for _, ev := range events {
		frame, err := WatchEvent(ev.eventType, ev.obj)
		if err != nil {
			t.Fatalf("WatchEvent(%s): %v", ev.eventType, err)
		}
		stream = append(stream, frame...)
	}
	frames := protobuf.LengthDelimitedFramer.NewFrameReader(io.NopCloser(bytes.NewReader(stream)))
	buf := make([]byte, 64<<10)
	for _, want := range events {
		n, err := frames.Read(buf)
		if err != nil {
			t.Fatalf("reading the %s frame: %v", want.eventType, err)
		}
		var ev metav1.WatchEvent
		if err := ev.Unmarshal(buf[:n]); err != nil {
			t.Fatalf("decoding the %s event: %v", want.eventType, err)
		}
		if ev.Type != want.eventType {
			t.Errorf("type = %q, want %q", ev.Type, want.eventType)
		}
		obj := decodeAsClientGo(t, ev.Object.Raw)
		jsoneq.Assert(t, typedJSON(t, obj), string(typedJSONOf(t, want.obj, obj)))
	}
}
