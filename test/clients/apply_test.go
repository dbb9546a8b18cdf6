package clients

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Server-side apply through client-go's dynamic client: Patch with
// types.ApplyPatchType and the Apply and ApplyStatus helpers, as
// controllers call them.
func TestDynamicApply(t *testing.T) {
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(config())
	newNamespace(t, dyn, "apply")
	client := dyn.Resource(widgets).Namespace("apply")

	// Apply-create, then apply-update, by one manager.
	created, err := client.Apply(ctx, "w", newWidget("apply", "w", 1), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply-create: %v", err)
	}
	wantManagers(t, created, "alice/Apply")
	updated, err := client.Apply(ctx, "w", newWidget("apply", "w", 2), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply-update: %v", err)
	}
	if replicas(updated) != 2 || updated.GetResourceVersion() == created.GetResourceVersion() {
		t.Fatalf("apply-update: %v", updated.Object)
	}

	// Another manager's different value conflicts: a 409 whose causes name
	// alice and the field; the object is unchanged.
	body, err := json.Marshal(newWidget("apply", "w", 3).Object)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Patch(ctx, "w", types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("conflict: %v, want a 409 Conflict", err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != metav1.CauseTypeFieldManagerConflict || causes[0].Field != ".spec.replicas" ||
		!strings.Contains(causes[0].Message, `"alice"`) {
		t.Fatalf("conflict causes: %+v", causes)
	}

	// Force takes the field over: bob owns replicas, alice keeps port.
	forced, err := client.Apply(ctx, "w", newWidget("apply", "w", 3), metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatalf("force: %v", err)
	}
	if replicas(forced) != 3 {
		t.Fatalf("force: %v", forced.Object)
	}
	wantManagers(t, forced, "alice/Apply", "bob/Apply")
	for _, e := range forced.GetManagedFields() {
		if e.Manager == "alice" && strings.Contains(string(e.FieldsV1.Raw), "f:replicas") {
			t.Fatalf("alice still owns replicas: %s", e.FieldsV1.Raw)
		}
	}

	// ApplyStatus writes the status subresource under its own entry.
	status := newWidget("apply", "w", 0)
	unstructured.RemoveNestedField(status.Object, "spec")
	status.Object["status"] = map[string]any{"readyReplicas": int64(3)}
	withStatus, err := client.ApplyStatus(ctx, "w", status, metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatalf("apply status: %v", err)
	}
	if ready, _, _ := unstructured.NestedInt64(withStatus.Object, "status", "readyReplicas"); ready != 3 || replicas(withStatus) != 3 {
		t.Fatalf("apply status: %v", withStatus.Object)
	}
	wantManagers(t, withStatus, "alice/Apply", "bob/Apply", "controller/Apply/status")
}

func replicas(u *unstructured.Unstructured) int64 {
	n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	return n
}

// wantManagers checks the manager, operation and subresource of each
// managedFields entry, in order.
func wantManagers(t *testing.T, u *unstructured.Unstructured, want ...string) {
	t.Helper()
	var got []string
	for _, e := range u.GetManagedFields() {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		if e.APIVersion != "labs.example.com/v1alpha1" || e.FieldsType != "FieldsV1" || e.Time == nil {
			t.Errorf("entry %s: apiVersion %q, fieldsType %q, time %v", s, e.APIVersion, e.FieldsType, e.Time)
		}
		got = append(got, s)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("managedFields: %v, want %v", got, want)
	}
}
