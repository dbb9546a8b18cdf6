// Package apply tracks field ownership (metadata.managedFields) and merges
// server-side apply patches, as kube-apiserver does for custom resources.
// It is the only user of sigs.k8s.io/structured-merge-diff and of
// k8s.io/apimachinery/pkg/util/managedfields: kube-apiserver's own
// FieldManager (the same chain of managers: version check, last-applied
// upgrade, at most 10 update entries, strip of server-owned metadata,
// conflict errors) runs here on unstructured objects, so that managedFields
// are written exactly as Kubernetes writes them. Objects come and go as
// JSON bytes; they are decoded to unstructured only inside this package.
//
// A Kind's type information (the structured-merge-diff schema of every
// version, from each version's openAPIV3Schema and its x-kubernetes-list-type,
// x-kubernetes-list-map-keys, x-kubernetes-map-type and
// x-kubernetes-preserve-unknown-fields) is built once per definition load,
// on the first write that needs it, never per request.
package apply
