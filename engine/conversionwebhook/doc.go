// Package conversionwebhook converts the objects of a
// CustomResourceDefinition whose conversion strategy is Webhook, by calling
// its webhook as kube-apiserver does (k8s.io/apiextensions-apiserver's
// webhook_converter.go, read, not imported: it is built on client-go's REST
// machinery, and engine/webhook is dynapi's one webhook client):
//
//   - A ConversionReview in the first of the definition's
//     conversionReviewVersions that kube knows (v1, v1beta1), with a fresh
//     request uid, the desired apiVersion, and the objects not in it
//     already: one call for all of them, a list page or a batch of watch
//     events at a time, never one per object; none, no call.
//   - The response is checked with kube's words: its kind and uid (v1), its
//     result, the count of convertedObjects, each one's apiVersion, kind,
//     name, namespace and uid; its metadata is the original's again, except
//     labels and annotations, which the webhook may change (and which are
//     then validated as kube validates them, with apimachinery's checks).
//   - A failure is kube's 500 with no reason, "conversion webhook for
//     <group/version, Kind=kind> failed: …", and counts in kube's metrics:
//     apiserver_crd_conversion_webhook_duration_seconds, and
//     apiserver_conversion_webhook_request_total and
//     apiserver_conversion_webhook_duration_seconds by failure type; the
//     client's own metrics count the call as well.
package conversionwebhook
