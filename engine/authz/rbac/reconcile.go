package rbac

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What kube-apiserver's RBAC reconciliation (pkg/registry/rbac/reconciliation)
// does to a bootstrap role or binding that exists, with
// RemoveExtraPermissions and RemoveExtraSubjects off, as at its start:
// what the operator added is kept, what they removed of the bootstrap
// policy is put back, unless the object's autoupdate annotation is "false".

// autoUpdate is the annotation that, set to "false", keeps Bootstrap from
// changing a bootstrap role or binding.
const autoUpdate = "rbac.authorization.kubernetes.io/autoupdate"

// change is what reconciling an existing object asks for.
type change int

const (
	unchanged change = iota
	update
	recreate // a binding whose roleRef differs: roleRef cannot change
)

// reconcileRole is existing with what expected has that it lacks: labels
// and annotations (existing values win), aggregation selectors and rules.
func reconcileRole(existing, expected *rbacv1.ClusterRole) (*rbacv1.ClusterRole, change) {
	if existing.Annotations[autoUpdate] == "false" {
		return existing, unchanged
	}
	out := existing.DeepCopy()
	out.Labels, out.Annotations = merged(expected.Labels, out.Labels), merged(expected.Annotations, out.Annotations)
	if expected.AggregationRule != nil {
		if out.AggregationRule == nil {
			out.AggregationRule = &rbacv1.AggregationRule{}
		}
		for _, sel := range expected.AggregationRule.ClusterRoleSelectors {
			if !slices.ContainsFunc(out.AggregationRule.ClusterRoleSelectors, func(s metav1.LabelSelector) bool { return equality.Semantic.DeepEqual(s, sel) }) {
				out.AggregationRule.ClusterRoleSelectors = append(out.AggregationRule.ClusterRoleSelectors, sel)
			}
		}
	}
	out.Rules = append(out.Rules, Uncovered(existing.Rules, expected.Rules)...)
	return out, changed(existing, out)
}

// reconcileBinding is existing with expected's labels, annotations and
// subjects added, or expected itself when the roleRefs differ.
func reconcileBinding(existing, expected *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, change) {
	switch {
	case existing.Annotations[autoUpdate] == "false":
		return existing, unchanged
	case existing.RoleRef != expected.RoleRef:
		return expected, recreate
	}
	out := existing.DeepCopy()
	out.Labels, out.Annotations = merged(expected.Labels, out.Labels), merged(expected.Annotations, out.Annotations)
	for _, s := range expected.Subjects {
		if !slices.Contains(out.Subjects, s) {
			out.Subjects = append(out.Subjects, s)
		}
	}
	return out, changed(existing, out)
}

func changed[T any](before, after *T) change {
	if equality.Semantic.DeepEqual(before, after) {
		return unchanged
	}
	return update
}

// merged is base with over's entries on top.
func merged(base, over map[string]string) map[string]string {
	if len(base) == 0 {
		return over
	}
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}

// reconciled is the body the stored object should have, for a ClusterRole
// or ClusterRoleBinding of the bootstrap policy. Errors: those of decoding.
func reconciled(kind string, stored, expected []byte) ([]byte, change, error) {
	switch kind {
	case "ClusterRole":
		return reconcileJSON(stored, expected, reconcileRole)
	case "ClusterRoleBinding":
		return reconcileJSON(stored, expected, reconcileBinding)
	}
	return nil, unchanged, fmt.Errorf("bootstrap policy: %s is not reconciled", kind)
}

func reconcileJSON[T any](stored, expected []byte, reconcile func(existing, expected *T) (*T, change)) ([]byte, change, error) {
	var existing, want T
	if err := json.Unmarshal(stored, &existing); err != nil {
		return nil, unchanged, fmt.Errorf("decode stored object: %w", err)
	}
	if err := json.Unmarshal(expected, &want); err != nil {
		return nil, unchanged, fmt.Errorf("decode bootstrap policy: %w", err)
	}
	out, c := reconcile(&existing, &want)
	switch c {
	case unchanged:
		return nil, c, nil
	case recreate:
		return expected, c, nil
	}
	body, err := json.Marshal(out)
	return body, c, err
}
