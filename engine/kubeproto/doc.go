// Package kubeproto turns a body in Kubernetes' protobuf wire format
// (MediaType) into the equivalent JSON object, so that the HTTP layer can feed
// it into dynapi's JSON pipeline, and JSON objects, lists and watch events
// back into protobuf for the clients that ask for it (Accept).
//
// Why it exists: kubectl's typed clientset sends some requests (notably
// `kubectl create namespace NAME`) as protobuf and does not fall back to JSON
// on 415, while dynapi stores and validates everything as JSON; client-go's
// typed clients ask for protobuf answers first.
//
// Why a compiled type appears in a server with no compiled types: protobuf
// carries field numbers, not field names, so only the generated type of
// k8s.io/api (k8s.io/apiextensions-apiserver for CustomResourceDefinition)
// can read or write the payload. The package uses that type at the edge
// alone; the JSON it produces goes through dynapi's definition-driven
// pipeline (prune, default, validate, convert, store) like any JSON body, and
// answers are encoded from the pipeline's JSON. Only the built-in kinds are
// in the table (see kinds); any other kind is UnsupportedMediaType, as
// kube-apiserver answers for custom resources, which have no protobuf form.
package kubeproto
