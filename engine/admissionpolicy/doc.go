// Package admissionpolicy evaluates ValidatingAdmissionPolicies and
// MutatingAdmissionPolicies with their bindings, as kube-apiserver's
// admission plug-ins of the same names do. It feeds Kubernetes' own
// compilers and evaluators (k8s.io/apiserver's policy/validating,
// policy/mutating and admission/plugin/cel) with dynapi's stored objects,
// so that matching, CEL variables, costs, messages and patches have
// kube's exact semantics; what kube's plug-ins add on top (informers,
// client-go) is replaced by a Set compiled once per snapshot of the
// policy objects and an Env that reads namespaces and params from the
// store.
//
// It is, beside engine/schema/cel, the only package that imports CEL:
// the admission policy libraries bring their own environment.
package admissionpolicy
