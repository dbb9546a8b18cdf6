package kubeproto

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// message is a generated k8s.io/api type: it reads and writes its own
// protobuf payload, and its TypeMeta receives apiVersion and kind, which
// the payload lacks.
type message interface {
	runtime.Object
	Unmarshal(data []byte) error
	Marshal() ([]byte, error)
}

// typeKey names a kind as the protobuf envelope does.
type typeKey struct{ apiVersion, kind string }

// kinds holds the kinds ToJSON decodes and FromJSON encodes: the built-in
// kinds (package builtin) that client-go's typed clients send and ask for
// as protobuf, and Status, which kube-apiserver answers errors with. Add a
// built-in kind in one line. Their lists need no type: List writes a
// list's fields itself.
var kinds = map[typeKey]func() message{
	{"v1", "Namespace"}:                                                     func() message { return new(corev1.Namespace) },
	{"v1", "ConfigMap"}:                                                     func() message { return new(corev1.ConfigMap) },
	{"v1", "Secret"}:                                                        func() message { return new(corev1.Secret) },
	{"v1", "ServiceAccount"}:                                                func() message { return new(corev1.ServiceAccount) },
	{"v1", "Event"}:                                                         func() message { return new(corev1.Event) },
	{"coordination.k8s.io/v1", "Lease"}:                                     func() message { return new(coordinationv1.Lease) },
	{"events.k8s.io/v1", "Event"}:                                           func() message { return new(eventsv1.Event) },
	{"rbac.authorization.k8s.io/v1", "Role"}:                                func() message { return new(rbacv1.Role) },
	{"rbac.authorization.k8s.io/v1", "ClusterRole"}:                         func() message { return new(rbacv1.ClusterRole) },
	{"rbac.authorization.k8s.io/v1", "RoleBinding"}:                         func() message { return new(rbacv1.RoleBinding) },
	{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"}:                  func() message { return new(rbacv1.ClusterRoleBinding) },
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition"}:                 func() message { return new(apiextensionsv1.CustomResourceDefinition) },
	{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"}:   func() message { return new(admissionregistrationv1.ValidatingWebhookConfiguration) },
	{"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"}:     func() message { return new(admissionregistrationv1.MutatingWebhookConfiguration) },
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"}:        func() message { return new(admissionregistrationv1.ValidatingAdmissionPolicy) },
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"}: func() message { return new(admissionregistrationv1.ValidatingAdmissionPolicyBinding) },
	{"admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy"}:          func() message { return new(admissionregistrationv1.MutatingAdmissionPolicy) },
	{"admissionregistration.k8s.io/v1", "MutatingAdmissionPolicyBinding"}:   func() message { return new(admissionregistrationv1.MutatingAdmissionPolicyBinding) },
	{"storagemigration.k8s.io/v1", "StorageVersionMigration"}:               func() message { return new(storagemigrationv1.StorageVersionMigration) },
	{"v1", "Status"}: func() message { return new(metav1.Status) },
	// The reviews kubectl auth sends, and kubectl create token's request.
	{"authentication.k8s.io/v1", "SelfSubjectReview"}:      func() message { return new(authenticationv1.SelfSubjectReview) },
	{"authentication.k8s.io/v1", "TokenRequest"}:           func() message { return new(authenticationv1.TokenRequest) },
	{"authentication.k8s.io/v1", "TokenReview"}:            func() message { return new(authenticationv1.TokenReview) },
	{"authorization.k8s.io/v1", "SelfSubjectAccessReview"}: func() message { return new(authorizationv1.SelfSubjectAccessReview) },
	{"authorization.k8s.io/v1", "SelfSubjectRulesReview"}:  func() message { return new(authorizationv1.SelfSubjectRulesReview) },
	{"authorization.k8s.io/v1", "SubjectAccessReview"}:     func() message { return new(authorizationv1.SubjectAccessReview) },
}

// lookup finds the type of a kind. DeleteOptions, the body of a DELETE,
// is the same type in every group version client-go sends it in (its
// client's: "v1", "coordination.k8s.io/v1", or meta.k8s.io/v1).
func lookup(apiVersion, kind string) (func() message, bool) {
	if kind == "DeleteOptions" {
		return func() message { return new(metav1.DeleteOptions) }, true
	}
	f, ok := kinds[typeKey{apiVersion, kind}]
	return f, ok
}
