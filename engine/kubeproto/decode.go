package kubeproto

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynapi/dynapi/engine"
)

// MediaType is the Content-Type of a body in Kubernetes' protobuf wire format.
const MediaType = "application/vnd.kubernetes.protobuf"

// magic starts every body in MediaType, before the runtime.Unknown envelope.
var magic = []byte("k8s\x00")

// IsProtobuf reports whether body starts as a body in MediaType does.
func IsProtobuf(body []byte) bool { return bytes.HasPrefix(body, magic) }

// ToJSON decodes body, the magic prefix "k8s\x00" followed by a protobuf
// runtime.Unknown envelope, into the JSON object it carries, with apiVersion
// and kind set from the envelope. Errors: BadRequest for a body without the
// prefix or with an undecodable envelope or payload; UnsupportedMediaType for
// a kind this package does not decode.
func ToJSON(body []byte) ([]byte, error) {
	env, err := envelope(body)
	if err != nil {
		return nil, err
	}
	newMessage, ok := lookup(env.APIVersion, env.Kind)
	if !ok {
		return nil, unsupported(env.TypeMeta)
	}
	obj := newMessage()
	// Like kube-apiserver, read Raw as protobuf whatever ContentType and
	// ContentEncoding say: client-go never sets them on a request body.
	if err := obj.Unmarshal(env.Raw); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "decoding the protobuf %s %s: %v", env.APIVersion, env.Kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(env.APIVersion, env.Kind))
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s as JSON: %w", env.Kind, err)
	}
	return out, nil
}

// envelope checks the magic prefix and reads the runtime.Unknown after it.
// Errors: BadRequest.
func envelope(body []byte) (*runtime.Unknown, error) {
	data, ok := bytes.CutPrefix(body, magic)
	if !ok {
		return nil, engine.Errorf(engine.CodeBadRequest,
			"the request body is not in Kubernetes' protobuf format: it does not start with %q", magic)
	}
	var env runtime.Unknown
	if err := env.Unmarshal(data); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "decoding the protobuf envelope: %v", err)
	}
	if env.APIVersion == "" || env.Kind == "" {
		return nil, engine.Errorf(engine.CodeBadRequest,
			"the protobuf envelope does not name the object's apiVersion and kind (got %q, %q)", env.APIVersion, env.Kind)
	}
	return &env, nil
}

// unsupported is kube-apiserver's 415 message, with a note naming the kind.
func unsupported(tm runtime.TypeMeta) *engine.Error {
	return engine.Errorf(engine.CodeUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"+
			" (%s is not supported for %s %s)", MediaType, tm.APIVersion, tm.Kind)
}
