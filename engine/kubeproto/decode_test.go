package kubeproto

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestToJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		obj  runtime.Object
		want string
	}{
		{
			name: "name only",
			obj:  &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}},
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"},"spec":{},"status":{}}`,
		},
		{
			name: "every field kubectl can send",
			obj: &corev1.Namespace{
				ObjectMeta: metav1.ObjectMeta{
					Name:        "team-a",
					Labels:      map[string]string{"app.kubernetes.io/name": "a", "tier": "gold"},
					Annotations: map[string]string{"example.com/owner": "ops"},
					Finalizers:  []string{"example.com/cleanup"},
				},
				Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
			},
			want: `{"apiVersion":"v1","kind":"Namespace",
				"metadata":{"name":"team-a",
					"labels":{"app.kubernetes.io/name":"a","tier":"gold"},
					"annotations":{"example.com/owner":"ops"},
					"finalizers":["example.com/cleanup"]},
				"spec":{"finalizers":["kubernetes"]},"status":{}}`,
		},
		{
			name: "status",
			obj: &corev1.Namespace{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "tmp-"},
				Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
			},
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"tmp-"},
				"spec":{},"status":{"phase":"Terminating"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToJSON(encode(t, tt.obj))
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			jsoneq.Assert(t, got, tt.want)
		})
	}
}

func TestToJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     []byte
		wantCode engine.Code
		wantMsg  []string // substrings of the message
	}{
		{"empty body", nil, engine.CodeBadRequest, []string{"does not start with"}},
		{"JSON, no magic", []byte(`{"apiVersion":"v1","kind":"Namespace"}`), engine.CodeBadRequest, []string{"does not start with"}},
		{"garbage after magic", append(bytes.Clone(magic), "garbage"...), engine.CodeBadRequest, []string{"protobuf envelope"}},
		{"empty envelope", bytes.Clone(magic), engine.CodeBadRequest, []string{"apiVersion and kind"}},
		{"undecodable payload", wrap(t, "v1", "Namespace", []byte{0xff, 0xff}), engine.CodeBadRequest, []string{"v1 Namespace"}},
		{
			name:     "kind not in the table",
			body:     encode(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}),
			wantCode: engine.CodeUnsupportedMediaType,
			wantMsg: []string{
				"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
				"v1 Pod",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ToJSON(tt.body)
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("ToJSON = %s, %v; want an *engine.Error", got, err)
			}
			if e.Code != tt.wantCode {
				t.Errorf("code = %s, want %s (message %q)", e.Code, tt.wantCode, e.Message)
			}
			for _, s := range tt.wantMsg {
				if !strings.Contains(e.Message, s) {
					t.Errorf("message %q does not contain %q", e.Message, s)
				}
			}
		})
	}
}

// encode builds a body the way client-go does: the scheme names the object's
// apiVersion and kind, and the protobuf serializer wraps it in runtime.Unknown
// after the magic prefix.
func encode(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := errors.Join(corev1.AddToScheme(scheme), coordinationv1.AddToScheme(scheme), rbacv1.AddToScheme(scheme)); err != nil {
		t.Fatal(err)
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme, scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wrap builds a body whose envelope carries raw as the payload.
func wrap(t *testing.T, apiVersion, kind string, raw []byte) []byte {
	t.Helper()
	env := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	data, err := env.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.Clone(magic), data...)
}
