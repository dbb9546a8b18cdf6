package main

// kind is one built-in kind to generate: its names, where its schema is in
// Kubernetes' published OpenAPI, and what the OpenAPI does not say
// (kubectl's columns, as far as a JSONPath can express them).
type kind struct {
	file       string // under -out: <group folder>/<kind in lower case>.yaml
	spec       string // the OpenAPI v3 file, in api/openapi-spec/v3
	schema     string // the component's name
	group      string
	version    string
	kind       string
	plural     string
	shortNames []string
	scope      string
	columns    []column
	selectable []string // field selectors kube-apiserver serves for the kind, as selectable fields' paths
	status     bool     // whether kube-apiserver serves a status subresource for the kind
	note       string   // the file's leading comment
}

// column is one printer column.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	JSONPath    string `json:"jsonPath"`
	Description string `json:"description,omitempty"`
	Priority    int    `json:"priority,omitempty"`
}

var age = column{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}

const (
	coreSpec   = "api__v1_openapi.json"
	coordSpec  = "apis__coordination.k8s.io__v1_openapi.json"
	evSpec     = "apis__events.k8s.io__v1_openapi.json"
	rbacSpec   = "apis__rbac.authorization.k8s.io__v1_openapi.json"
	rbacGroup  = "rbac.authorization.k8s.io"
	admSpec    = "apis__admissionregistration.k8s.io__v1_openapi.json"
	admGroup   = "admissionregistration.k8s.io"
	svmSpec    = "apis__storagemigration.k8s.io__v1_openapi.json"
	apiregSpec = "apis__apiregistration.k8s.io__v1_openapi.json"
)

// kinds are the generated built-in kinds. Namespace and
// CustomResourceDefinition are written by hand: Namespace's published
// schema has no enum for status.phase, which the server relies on, and
// CustomResourceDefinition's is recursive (JSONSchemaProps), which a
// structural schema cannot be.
var kinds = []kind{
	{file: "core/configmap.yaml", spec: coreSpec, schema: "io.k8s.api.core.v1.ConfigMap",
		version: "v1", kind: "ConfigMap", plural: "configmaps", shortNames: []string{"cm"}, scope: "Namespaced",
		columns: []column{age}, note: "immutable: true freezes data and binaryData (see engine/kinds/configmap)."},
	{file: "core/secret.yaml", spec: coreSpec, schema: "io.k8s.api.core.v1.Secret",
		version: "v1", kind: "Secret", plural: "secrets", scope: "Namespaced",
		columns: []column{{Name: "Type", Type: "string", JSONPath: ".type"}, age},
		note:    "stringData is merged into data on write; type is immutable; immutable: true freezes data (see engine/kinds/configmap)."},
	{file: "core/serviceaccount.yaml", spec: coreSpec, schema: "io.k8s.api.core.v1.ServiceAccount",
		version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", shortNames: []string{"sa"}, scope: "Namespaced",
		columns: []column{age}, note: "Stored and served; no token is issued."},
	{file: "core/event.yaml", spec: coreSpec, schema: "io.k8s.api.core.v1.Event",
		version: "v1", kind: "Event", plural: "events", shortNames: []string{"ev"}, scope: "Namespaced",
		columns: []column{
			{Name: "Last Seen", Type: "date", JSONPath: ".lastTimestamp"},
			{Name: "Type", Type: "string", JSONPath: ".type"},
			{Name: "Reason", Type: "string", JSONPath: ".reason"},
			{Name: "Object", Type: "string", JSONPath: ".involvedObject.name"},
			{Name: "Message", Type: "string", JSONPath: ".message"},
		},
		// kube-apiserver's Event field selectors that clients use (kubectl events --for,
		// kubectl describe), within a definition's limit of 8: not involvedObject.resourceVersion
		// and involvedObject.fieldPath, nor "source", which names .source.component (a selectable
		// field is named by its path).
		selectable: []string{".involvedObject.kind", ".involvedObject.namespace", ".involvedObject.name", ".involvedObject.uid",
			".involvedObject.apiVersion", ".reason", ".reportingComponent", ".type"}},
	{file: "coordination.k8s.io/lease.yaml", spec: coordSpec, schema: "io.k8s.api.coordination.v1.Lease",
		group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", scope: "Namespaced",
		columns: []column{{Name: "Holder", Type: "string", JSONPath: ".spec.holderIdentity"}, age}},
	{file: "events.k8s.io/event.yaml", spec: evSpec, schema: "io.k8s.api.events.v1.Event",
		group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", shortNames: []string{"ev"}, scope: "Namespaced",
		columns: []column{
			{Name: "Type", Type: "string", JSONPath: ".type"},
			{Name: "Reason", Type: "string", JSONPath: ".reason"},
			{Name: "Object", Type: "string", JSONPath: ".regarding.name"},
			{Name: "Note", Type: "string", JSONPath: ".note"},
			age,
		},
		note: "Stored apart from core/v1 Event: dynapi converts between versions of one kind, not between kinds of two groups."},
	{file: rbacGroup + "/role.yaml", spec: rbacSpec, schema: "io.k8s.api.rbac.v1.Role",
		group: rbacGroup, version: "v1", kind: "Role", plural: "roles", scope: "Namespaced",
		columns: []column{{Name: "Created At", Type: "date", JSONPath: ".metadata.creationTimestamp"}},
		note:    "Stored now; enforced by authorization later."},
	{file: rbacGroup + "/clusterrole.yaml", spec: rbacSpec, schema: "io.k8s.api.rbac.v1.ClusterRole",
		group: rbacGroup, version: "v1", kind: "ClusterRole", plural: "clusterroles", scope: "Cluster",
		columns: []column{{Name: "Created At", Type: "date", JSONPath: ".metadata.creationTimestamp"}},
		note:    "aggregationRule is stored; aggregation itself comes later."},
	{file: rbacGroup + "/rolebinding.yaml", spec: rbacSpec, schema: "io.k8s.api.rbac.v1.RoleBinding",
		group: rbacGroup, version: "v1", kind: "RoleBinding", plural: "rolebindings", scope: "Namespaced",
		columns: []column{{Name: "Role", Type: "string", JSONPath: ".roleRef.name"}, age},
		note:    "roleRef is immutable (see engine/kinds/roles)."},
	{file: rbacGroup + "/clusterrolebinding.yaml", spec: rbacSpec, schema: "io.k8s.api.rbac.v1.ClusterRoleBinding",
		group: rbacGroup, version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", scope: "Cluster",
		columns: []column{{Name: "Role", Type: "string", JSONPath: ".roleRef.name"}, age},
		note:    "roleRef is immutable (see engine/kinds/roles)."},
	{file: admGroup + "/validatingwebhookconfiguration.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration",
		group: admGroup, version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", scope: "Cluster",
		columns: []column{age}},
	{file: admGroup + "/mutatingwebhookconfiguration.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration",
		group: admGroup, version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", scope: "Cluster",
		columns: []column{age}},
	{file: admGroup + "/validatingadmissionpolicy.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy",
		group: admGroup, version: "v1", kind: "ValidatingAdmissionPolicy", plural: "validatingadmissionpolicies", scope: "Cluster",
		columns: []column{{Name: "ParamKind", Type: "string", JSONPath: ".spec.paramKind.kind"}, age}, status: true,
		note: "status (observedGeneration, typeChecking) is written through /status by the type checker (see engine/kinds/admissionpolicies)."},
	{file: admGroup + "/validatingadmissionpolicybinding.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding",
		group: admGroup, version: "v1", kind: "ValidatingAdmissionPolicyBinding", plural: "validatingadmissionpolicybindings", scope: "Cluster",
		columns: []column{{Name: "PolicyName", Type: "string", JSONPath: ".spec.policyName"}, {Name: "ParamRef", Type: "string", JSONPath: ".spec.paramRef.name"}, age}},
	{file: admGroup + "/mutatingadmissionpolicy.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy",
		group: admGroup, version: "v1", kind: "MutatingAdmissionPolicy", plural: "mutatingadmissionpolicies", scope: "Cluster",
		columns: []column{{Name: "ParamKind", Type: "string", JSONPath: ".spec.paramKind.kind"}, age}},
	{file: admGroup + "/mutatingadmissionpolicybinding.yaml", spec: admSpec, schema: "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicyBinding",
		group: admGroup, version: "v1", kind: "MutatingAdmissionPolicyBinding", plural: "mutatingadmissionpolicybindings", scope: "Cluster",
		columns: []column{{Name: "PolicyName", Type: "string", JSONPath: ".spec.policyName"}, {Name: "ParamRef", Type: "string", JSONPath: ".spec.paramRef.name"}, age}},
	{file: "storagemigration.k8s.io/storageversionmigration.yaml", spec: svmSpec, schema: "io.k8s.api.storagemigration.v1.StorageVersionMigration",
		group: "storagemigration.k8s.io", version: "v1", kind: "StorageVersionMigration", plural: "storageversionmigrations", scope: "Cluster",
		columns: []column{{Name: "Resource", Type: "string", JSONPath: ".spec.resource.resource"}, age}, status: true,
		note: "spec is immutable; status is written through /status; a migration is run (see engine/kinds/storageversionmigration)."},
	{file: "apiregistration.k8s.io/apiservice.yaml", spec: apiregSpec, schema: "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
		group: "apiregistration.k8s.io", version: "v1", kind: "APIService", plural: "apiservices", scope: "Cluster",
		columns: []column{
			{Name: "Service", Type: "string", JSONPath: ".spec.service.name"},
			{Name: "Available", Type: "string", JSONPath: ".status.conditions[?(@.type==\"Available\")].status"},
			age,
		},
		note: "Stored and served; dynapi aggregates no APIs, so an APIService is never Available."},
}
