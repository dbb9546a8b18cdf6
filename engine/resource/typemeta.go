package resource

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkTypeMeta verifies that the body is an object of the kind and version
// the URL names, as kube-apiserver's decoder does. The body is valid JSON:
// the HTTP edge checked it once, so it is not scanned again here.
// Errors: BadRequest.
func checkTypeMeta(t Target, obj []byte) error {
	if !gjson.Parse(jsonscan.View(obj)).IsObject() {
		return engine.Errorf(engine.CodeBadRequest, "the request body must be a JSON or YAML object")
	}
	tm := gjson.GetManyBytes(obj, "kind", "apiVersion")
	kind, apiVersion := tm[0].String(), tm[1].String()
	switch {
	case kind == "":
		return engine.Errorf(engine.CodeBadRequest, "Object 'Kind' is missing in '%s'", abbreviate(obj))
	case apiVersion == "":
		return engine.Errorf(engine.CodeBadRequest, "Object 'apiVersion' is missing in '%s'", abbreviate(obj))
	case apiVersion != t.APIVersion():
		return engine.Errorf(engine.CodeBadRequest, "the API version in the data (%s) does not match the expected API version (%s)", apiVersion, t.APIVersion())
	case kind != t.Resource.Kind:
		return engine.Errorf(engine.CodeBadRequest, "the kind in the data (%s) does not match the expected kind (%s)", kind, t.Resource.Kind)
	}
	return nil
}

// abbreviate shortens a body quoted in an error message.
func abbreviate(obj []byte) string {
	const max = 200
	if len(obj) > max {
		return string(obj[:max]) + "..."
	}
	return string(obj)
}

// parseMeta decodes the body's metadata and settles its namespace against the
// URL's. Errors: BadRequest.
func parseMeta(t Target, obj []byte) (*metav1.ObjectMeta, error) {
	m, err := meta.Parse(obj)
	if err != nil {
		return nil, err
	}
	if !t.Resource.Namespaced {
		// kube-apiserver clears a namespace sent for a cluster-scoped object.
		m.Namespace = ""
		return m, nil
	}
	if m.Namespace == "" {
		m.Namespace = t.Namespace
	}
	if m.Namespace != t.Namespace {
		return nil, engine.Errorf(engine.CodeBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
	}
	return m, nil
}
