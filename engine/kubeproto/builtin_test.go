package kubeproto

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The built-in kinds client-go sends as protobuf decode to their JSON.
func TestToJSONBuiltinKinds(t *testing.T) {
	t.Parallel()
	secs := int32(15)
	holder := "pod-1"
	tests := []struct {
		name string
		obj  runtime.Object
		want string
	}{
		{"secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a": []byte("b")}, Type: corev1.SecretTypeOpaque},
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"Yg=="},"type":"Opaque"}`},
		{"configmap", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"a": "b"}},
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`},
		{"lease", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs}},
			`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"pod-1","leaseDurationSeconds":15}}`},
		{"rolebinding", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "r"}},
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b"},
				"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`},
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

// A DeleteOptions body decodes whatever group version its client sent it in.
func TestToJSONDeleteOptions(t *testing.T) {
	t.Parallel()
	rv := "42"
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}, DryRun: []string{"All"}}
	raw, err := opts.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, apiVersion := range []string{"v1", "coordination.k8s.io/v1", "meta.k8s.io/v1"} {
		got, err := ToJSON(wrap(t, apiVersion, "DeleteOptions", raw))
		if err != nil {
			t.Fatalf("%s: %v", apiVersion, err)
		}
		jsoneq.Assert(t, got, `{"apiVersion":"`+apiVersion+`","kind":"DeleteOptions","preconditions":{"resourceVersion":"42"},"dryRun":["All"]}`)
	}
}
