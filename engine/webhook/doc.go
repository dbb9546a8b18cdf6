// Package webhook calls the webhooks that CustomResourceDefinitions and
// admission configurations name, as kube-apiserver calls them.
//
// It is the one webhook client that conversion webhooks (ConversionReview)
// and admission webhooks (AdmissionReview) share: a ClientConfig validated
// with kube's messages and field paths, a ServiceResolver that turns a
// service reference into an address (dynapi has no Service network), and a
// Client whose Call POSTs a JSON body and returns the response body, or an
// *ErrCallingWebhook worded as kube-apiserver words it.
//
// The contract, learned from k8s.io/apiserver/pkg/util/webhook (which is not
// imported: it builds on client-go's rest machinery and its codecs, a second
// HTTP client stack with its own metrics registry, for what is here one POST):
//
//   - TLS always (https only); the caBundle or, when empty, the system roots.
//   - A service reference is dialed at the address its resolver gives, but
//     the certificate is verified for name.namespace.svc, as kube does, so a
//     certificate issued for the service validates wherever it runs.
//   - HTTP/1.1 to services and remote URLs (kube's choice, so that concurrent
//     calls spread over the backends of a load balancer, issue 75791);
//     HTTP/2 may be negotiated with a loopback URL, as kube allows.
//   - One transport per (caBundle, server name, protocol), kept in a small
//     LRU cache: a call reuses connections and never builds a transport.
//   - A timeout per call (DefaultTimeout, at most MaxTimeout), sent to the
//     webhook as the ?timeout= parameter as client-go sends it (an answer
//     that races the deadline counts as late: the call failed); a bound on
//     the response size (kube has none: a hostile or broken webhook could
//     otherwise make dynapi read without end).
//
// The package knows nothing of review objects: encoding the request and
// checking the response are each feature's own.
package webhook
