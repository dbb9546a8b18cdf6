// Package admissionwebhook calls admission webhooks as kube-apiserver
// calls them: the MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations stored through the API, followed by
// watch (a change through any process is in force within the store's
// notification delay), compiled once per change into an immutable
// snapshot, and dispatched as the two admission plug-ins Mutating and
// Validating (see engine/admission).
//
// What is kube's, learned from k8s.io/apiserver/pkg/admission/plugin/webhook
// (not imported: it decodes every object into runtime.Objects and calls
// through client-go's REST machinery): configurations in name order, each
// webhook's rules, namespaceSelector, objectSelector, matchPolicy
// (Equivalent: another version of the same kind, the objects converted
// to it), matchConditions (kube's own CEL matcher, in engine/schema/cel),
// failurePolicy, sideEffects against dryRun, timeoutSeconds,
// admissionReviewVersions (v1, v1beta1), reinvocationPolicy, JSONPatch
// responses applied in order, validating webhooks called in parallel,
// warnings and auditAnnotations passed on, and kube's error texts. The
// webhook configurations and admission policies themselves are never
// sent to webhooks, as in kube, so that a broken webhook cannot lock out
// its own repair. Calls go through the one webhook client
// (engine/webhook).
package admissionwebhook
