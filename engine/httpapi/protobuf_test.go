package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/dynapi/dynapi/engine/kubeproto"
)

const (
	// acceptProtobuf is what client-go's typed clients send.
	acceptProtobuf = kubeproto.MediaType + ", application/json"
	crds           = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
)

// protobufCodec reads and writes protobuf as client-go does.
func protobufCodec(t *testing.T) *protobuf.Serializer {
	t.Helper()
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	if err := errors.Join(corev1.AddToScheme(scheme), coordinationv1.AddToScheme(scheme), apiextensionsv1.AddToScheme(scheme)); err != nil {
		t.Fatal(err)
	}
	return protobuf.NewSerializer(scheme, scheme)
}

// decodeProtobuf decodes a protobuf answer into a typed object.
func decodeProtobuf(t *testing.T, r response) runtime.Object {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != kubeproto.MediaType {
		t.Fatalf("Content-Type = %q, want protobuf (%d: %q)", ct, r.code, r.body)
	}
	obj, _, err := protobufCodec(t).Decode(r.body, nil, nil)
	if err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return obj
}

// encodeProtobuf is a request body as client-go sends it.
func encodeProtobuf(t *testing.T, obj runtime.Object, gvk schema.GroupVersionKind) string {
	t.Helper()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	if err := protobufCodec(t).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// wantProtobufStatus checks that r is a protobuf Status with code and reason.
func wantProtobufStatus(t *testing.T, r response, code int, reason metav1.StatusReason) {
	t.Helper()
	st, ok := decodeProtobuf(t, r).(*metav1.Status)
	if !ok || r.code != code || st.Code != int32(code) || st.Reason != reason || st.Status != metav1.StatusFailure {
		t.Fatalf("want a protobuf Status %d %s, got %d: %#v", code, reason, r.code, st)
	}
}

// Built-in kinds answer in protobuf when it comes first in Accept: one
// object, a list, the answer to a write, a delete, and errors.
func TestProtobufAnswers(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	created := s.mustDo(http.StatusCreated, http.MethodPost, configMaps, "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`, "Accept", acceptProtobuf)
	if cm, ok := decodeProtobuf(t, created).(*corev1.ConfigMap); !ok || cm.Name != "a" || cm.Data["k"] != "v" || cm.ResourceVersion == "" {
		t.Fatalf("created: %#v", cm)
	}
	got := s.mustDo(http.StatusOK, http.MethodGet, configMaps+"/a", "", "", "Accept", acceptProtobuf)
	if cm, ok := decodeProtobuf(t, got).(*corev1.ConfigMap); !ok || cm.Data["k"] != "v" || cm.Namespace != "default" {
		t.Fatalf("got: %#v", cm)
	}
	list := s.mustDo(http.StatusOK, http.MethodGet, configMaps+"?limit=5", "", "", "Accept", acceptProtobuf)
	if l, ok := decodeProtobuf(t, list).(*corev1.ConfigMapList); !ok || len(l.Items) != 1 || l.Items[0].Name != "a" || l.ResourceVersion == "" {
		t.Fatalf("list: %#v", l)
	}
	missing := s.do(http.MethodGet, configMaps+"/nope", "", "", "Accept", acceptProtobuf)
	wantProtobufStatus(t, missing, http.StatusNotFound, metav1.StatusReasonNotFound)
	invalid := s.do(http.MethodPut, configMaps+"/a", "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`, "Accept", acceptProtobuf)
	wantProtobufStatus(t, invalid, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	deleted := s.mustDo(http.StatusOK, http.MethodDelete, configMaps+"/a", "", "", "Accept", acceptProtobuf)
	if cm, ok := decodeProtobuf(t, deleted).(*corev1.ConfigMap); !ok || cm.Name != "a" {
		t.Fatalf("deleted: %#v", cm)
	}
	s.create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`)
	collection := s.mustDo(http.StatusOK, http.MethodDelete, configMaps, "", "", "Accept", acceptProtobuf)
	if l, ok := decodeProtobuf(t, collection).(*corev1.ConfigMapList); !ok || len(l.Items) != 1 || l.Items[0].Name != "b" {
		t.Fatalf("deletecollection: %#v", l)
	}
	// JSON first, or a Table (kubectl get), still answer JSON.
	for _, accept := range []string{"application/json, " + kubeproto.MediaType, "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"} {
		if r := s.mustDo(http.StatusOK, http.MethodGet, configMaps, "", "", "Accept", accept); r.header.Get("Content-Type") == kubeproto.MediaType {
			t.Errorf("Accept %q answered protobuf", accept)
		}
	}
}

// Custom resources have no protobuf form: JSON when JSON is acceptable
// too, 406 (a Status in protobuf, as asked) when only protobuf is.
func TestProtobufCustomResources(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`)
	r := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/w", "", "", "Accept", acceptProtobuf)
	if ct := r.header.Get("Content-Type"); ct != "application/json" || r.get("metadata.name").String() != "w" {
		t.Errorf("Content-Type %q: %s", ct, r.body)
	}
	for _, path := range []string{widgets + "/w", widgets, widgets + "?watch=true"} {
		wantProtobufStatus(t, s.do(http.MethodGet, path, "", "", "Accept", kubeproto.MediaType), http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
	}
	// Nothing is written when the answer cannot be given.
	wantProtobufStatus(t, s.do(http.MethodPost, widgets, "application/json",
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{}}`, "Accept", kubeproto.MediaType),
		http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
	s.mustDo(http.StatusNotFound, http.MethodGet, widgets+"/w2", "", "")
}

// A CustomResourceDefinition is created and deleted in protobuf, its
// DeleteOptions too, as the typed apiextensions clientset sends them.
func TestProtobufCustomResourceDefinition(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.proto.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "proto.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	body := encodeProtobuf(t, crd, apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	created := s.mustDo(http.StatusCreated, http.MethodPost, crds, kubeproto.MediaType, body, "Accept", acceptProtobuf)
	got, ok := decodeProtobuf(t, created).(*apiextensionsv1.CustomResourceDefinition)
	if !ok || got.Spec.Names.Kind != "Gadget" || got.UID == "" || !*got.Spec.Versions[0].Schema.OpenAPIV3Schema.XPreserveUnknownFields {
		t.Fatalf("created: %#v", got)
	}
	list := s.mustDo(http.StatusOK, http.MethodGet, crds, "", "", "Accept", acceptProtobuf)
	if l, ok := decodeProtobuf(t, list).(*apiextensionsv1.CustomResourceDefinitionList); !ok || len(l.Items) == 0 {
		t.Fatalf("list: %#v", l)
	}
	stale := "1"
	opts := encodeProtobuf(t, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}},
		apiextensionsv1.SchemeGroupVersion.WithKind("DeleteOptions"))
	conflict := s.do(http.MethodDelete, crds+"/"+crd.Name, kubeproto.MediaType, opts, "Accept", acceptProtobuf)
	wantProtobufStatus(t, conflict, http.StatusConflict, metav1.StatusReasonConflict)
	opts = encodeProtobuf(t, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &got.UID}},
		apiextensionsv1.SchemeGroupVersion.WithKind("DeleteOptions"))
	s.mustDo(http.StatusOK, http.MethodDelete, crds+"/"+crd.Name, kubeproto.MediaType, opts, "Accept", acceptProtobuf)
}

func ptr[T any](v T) *T { return &v }

// A watch asked in protobuf streams length-prefixed WatchEvent frames.
func TestProtobufWatch(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+configMaps+"?watch=true", nil)
	req.Header.Set("Accept", acceptProtobuf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != kubeproto.WatchMediaType {
		t.Fatalf("watch: %d, Content-Type %q", resp.StatusCode, ct)
	}
	s.create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched"},"data":{"k":"v"}}`)
	frames := protobuf.LengthDelimitedFramer.NewFrameReader(resp.Body)
	buf := make([]byte, 1<<20)
	n, err := frames.Read(buf)
	if err != nil {
		t.Fatalf("read a frame: %v", err)
	}
	var ev metav1.WatchEvent
	if err := ev.Unmarshal(buf[:n]); err != nil {
		t.Fatalf("decode the event: %v", err)
	}
	obj, _, err := protobufCodec(t).Decode(ev.Object.Raw, nil, nil)
	if err != nil {
		t.Fatalf("decode the event's object: %v", err)
	}
	if cm, ok := obj.(*corev1.ConfigMap); ev.Type != "ADDED" || !ok || cm.Name != "watched" || cm.Data["k"] != "v" {
		t.Fatalf("event %s: %#v", ev.Type, obj)
	}
}

// A MicroTime (a Lease's renewTime) must have six fraction digits, as
// metav1.MicroTime reads it: kube-apiserver refuses another form, and an
// object holding one could not be answered in protobuf.
func TestMicroTimeForm(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	const leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	lease := func(name, renewTime string) string {
		return `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"` + name + `"},"spec":{"renewTime":"` + renewTime + `"}}`
	}
	wantInvalid(t, s.do(http.MethodPost, leases, "application/json", lease("seconds", "2026-11-25T15:00:00Z")), "spec.renewTime", "should match")
	s.create(leases, lease("micro", "2026-11-25T15:00:00.000000Z"))
	got := s.mustDo(http.StatusOK, http.MethodGet, leases+"/micro", "", "", "Accept", acceptProtobuf)
	if l, ok := decodeProtobuf(t, got).(*coordinationv1.Lease); !ok || l.Spec.RenewTime == nil || l.Spec.RenewTime.Unix() != 1795618800 {
		t.Fatalf("lease: %#v", l)
	}
}
