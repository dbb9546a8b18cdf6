package registry

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Admission documents: a definition file may also hold admission policies
// and their bindings (admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
// MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding), kube 1.37's
// manifest-based admission control (KEP-5793): loaded and reloaded with
// the definitions, never served through the API. A file with a problem
// keeps the documents the previous snapshot had from it, as it keeps its
// definitions.

// admissionAPIVersion is the apiVersion of the admission documents.
const admissionAPIVersion = "admissionregistration.k8s.io/v1"

// admissionKinds are the kinds read as admission documents.
var admissionKinds = []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
	"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

// AdmissionDocument is one admission policy or binding from a file.
type AdmissionDocument struct {
	File string
	Line int
	Kind string
	Name string
	JSON []byte
}

// Admission returns the admission documents of the snapshot, in file
// order.
func (s *Snapshot) Admission() []AdmissionDocument { return s.admission }

// admissionOf reports whether d is an admission document, and returns it.
func admissionOf(d document) (AdmissionDocument, bool) {
	var head struct {
		APIVersion, Kind string
		Metadata         struct{ Name string }
	}
	if json.Unmarshal(d.json, &head) != nil || head.APIVersion != admissionAPIVersion || !slices.Contains(admissionKinds, head.Kind) {
		return AdmissionDocument{}, false
	}
	return AdmissionDocument{File: d.file, Line: d.line, Kind: head.Kind, Name: head.Metadata.Name, JSON: d.json}, true
}

// loadAdmission checks an admission document with LoadOptions.CheckAdmission
// and keeps it, or reports why not.
func (l *loader) loadAdmission(d document, a AdmissionDocument) {
	var reasons []string
	if l.opts.CheckAdmission != nil {
		reasons = l.opts.CheckAdmission(a.Kind, a.JSON)
	}
	for _, r := range reasons {
		l.report(d.problem(fmt.Sprintf("%s %s: %s", a.Kind, a.Name, r)))
	}
	if len(reasons) == 0 {
		l.admission = append(l.admission, a)
	}
}

// settleAdmission decides the snapshot's admission documents once every
// file is read: those of a refused file are the previous snapshot's from
// it; two documents of one kind and name, or a binding of a policy that
// no file holds, are refused.
func (l *loader) settleAdmission() []AdmissionDocument {
	var out []AdmissionDocument
	for _, a := range l.admission {
		if !l.refused[a.File] {
			out = append(out, a)
		}
	}
	for _, a := range l.prev.admission {
		if l.refused[a.File] {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b AdmissionDocument) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return l.uniqueAdmission(out)
}

// uniqueAdmission refuses the second of two documents of one kind and
// name, and bindings of policies that are not there.
func (l *loader) uniqueAdmission(docs []AdmissionDocument) []AdmissionDocument {
	seen := map[string]bool{}
	var out []AdmissionDocument
	for _, a := range docs {
		key := a.Kind + "/" + a.Name
		if seen[key] {
			l.report(Problem{File: a.File, Line: a.Line, Reason: fmt.Sprintf("%s %s: a second %s of that name", a.Kind, a.Name, a.Kind)})
			continue
		}
		seen[key] = true
		out = append(out, a)
	}
	return slices.DeleteFunc(out, func(a AdmissionDocument) bool {
		policy := policyOf(a)
		if policy == "" || seen[policy] {
			return false
		}
		l.report(Problem{File: a.File, Line: a.Line, Reason: fmt.Sprintf("%s %s: binds %s, which no definition file holds", a.Kind, a.Name, policy)})
		return true
	})
}

// policyOf is "<policy kind>/<name>" of the policy a binding binds; ""
// for a policy.
func policyOf(a AdmissionDocument) string {
	var b struct{ Spec struct{ PolicyName string } }
	_ = json.Unmarshal(a.JSON, &b) // read once already
	switch a.Kind {
	case "ValidatingAdmissionPolicyBinding":
		return "ValidatingAdmissionPolicy/" + b.Spec.PolicyName
	case "MutatingAdmissionPolicyBinding":
		return "MutatingAdmissionPolicy/" + b.Spec.PolicyName
	}
	return ""
}
