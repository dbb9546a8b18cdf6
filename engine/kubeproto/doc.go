// Package kubeproto turns a body in Kubernetes' protobuf wire format
// (MediaType) into the equivalent JSON object, so that the HTTP layer can feed
// it into dynapi's JSON pipeline.
//
// Why it exists: kubectl's typed clientset sends some requests (notably
// `kubectl create namespace NAME`) as protobuf and does not fall back to JSON
// on 415, while dynapi stores and validates everything as JSON.
//
// Why a compiled type appears in a server with no compiled types: protobuf
// carries field numbers, not field names, so only the generated type of
// k8s.io/api can read the payload. The package uses that type for decoding
// alone; the JSON it produces then goes through dynapi's definition-driven
// pipeline (prune, default, validate, convert, store) like any JSON body.
// Only the built-in kinds that kubectl sends this way are decoded (see kinds);
// any other kind is UnsupportedMediaType, as kube-apiserver answers for custom
// resources, which have no protobuf form.
package kubeproto
