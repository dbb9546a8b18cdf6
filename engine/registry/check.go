package registry

import (
	"fmt"
	"strings"

	// The exact rules Kubernetes applies to group, resource and version
	// names; reimplementing them would drift from what kube-apiserver accepts.
	"k8s.io/apimachinery/pkg/util/validation"
)

// Scope values.
const (
	scopeNamespaced = "Namespaced"
	scopeCluster    = "Cluster"
)

// reasons collects every problem of one definition: a user fixing a file
// wants all of them at once, not one per run.
type reasons []string

func (r *reasons) addf(format string, args ...any) {
	*r = append(*r, fmt.Sprintf(format, args...))
}

// setDefaults fills listKind and singular the way Kubernetes defaults a CRD.
func (n *native) setDefaults() {
	if n.Kind == "" {
		return
	}
	if n.ListKind == "" {
		n.ListKind = n.Kind + "List"
	}
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
}

// check returns every way the definition breaks the rules kube-apiserver
// applies to a CustomResourceDefinition (the native format follows the same
// rules, but for allowing the core group ""). It checks the schemas' presence,
// not their content: compiling them is the schema package's job.
func (n *native) check() []string {
	var r reasons
	n.checkNames(&r)
	switch n.Scope {
	case scopeNamespaced, scopeCluster:
	case "":
		r.addf("scope is required: Namespaced or Cluster")
	default:
		r.addf("scope %q: must be Namespaced or Cluster", n.Scope)
	}
	n.checkVersions(&r)
	return r
}

func (n *native) checkNames(r *reasons) {
	if n.Group != "" {
		checkName(r, "group", n.Group, validation.IsDNS1123Subdomain(n.Group))
	}
	checkLabel(r, "plural", n.Plural)
	checkKind(r, "kind", n.Kind)
	// Without a kind, singular and listKind have no default: "kind is
	// required" says it all.
	if n.Kind != "" || n.Singular != "" {
		checkLabel(r, "singular", n.Singular)
	}
	if n.Kind != "" || n.ListKind != "" {
		checkKind(r, "listKind", n.ListKind)
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		r.addf("listKind %q: kind and listKind may not be the same", n.ListKind)
	}
	for _, s := range n.ShortNames {
		checkLabel(r, "shortNames", s)
	}
	for _, c := range n.Categories {
		checkLabel(r, "categories", c)
	}
}

// checkLabel requires a lower-case DNS-1035 label: a resource name must be
// usable as a URL segment and as kubectl's argument.
func checkLabel(r *reasons, field, value string) {
	if value == "" {
		r.addf("%s is required", field)
		return
	}
	checkName(r, field, value, validation.IsDNS1035Label(value))
}

// checkKind applies Kubernetes' rule for kinds: mixed case, but otherwise a
// DNS-1035 label.
func checkKind(r *reasons, field, value string) {
	if value == "" {
		r.addf("%s is required", field)
		return
	}
	if errs := validation.IsDNS1035Label(strings.ToLower(value)); len(errs) > 0 {
		r.addf("%s %q: may have mixed case, but should otherwise match: %s", field, value, strings.Join(errs, "; "))
	}
}

func checkName(r *reasons, field, value string, errs []string) {
	if len(errs) > 0 {
		r.addf("%s %q: %s", field, value, strings.Join(errs, "; "))
	}
}

// checkVersions checks the version list as a whole, then each version.
func (n *native) checkVersions(r *reasons) {
	if len(n.Versions) == 0 {
		r.addf("at least one version is required")
		return
	}
	seen := map[string]bool{}
	var storage []string
	for i, v := range n.Versions {
		label := fmt.Sprintf("version %q", v.Name)
		if v.Name == "" {
			label = fmt.Sprintf("versions[%d]", i)
		}
		if seen[v.Name] && v.Name != "" {
			r.addf("%s: listed twice; version names must be unique", label)
		}
		seen[v.Name] = true
		if v.Storage {
			storage = append(storage, v.Name)
		}
		for _, reason := range v.check() {
			r.addf("%s: %s", label, reason)
		}
	}
	if len(storage) != 1 {
		r.addf("exactly one version must be the storage version (storage: true), found %d %v", len(storage), storage)
	}
}
