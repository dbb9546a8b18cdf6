package openapi

import (
	"fmt"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// ResolvedSchema returns the schema of v, a version of r, as the kind's
// /openapi/v3 document describes it with its $refs resolved: metadata is
// ObjectMeta's schema. It is what kube's schema resolvers give CEL's type
// checker (ValidatingAdmissionPolicy's status.typeChecking), so that
// object.metadata.name checks as a string. Errors: a schema that is not
// an object.
func ResolvedSchema(r *registry.Resource, v *registry.Version) ([]byte, error) {
	out, err := sjson.SetRawBytes(v.Schema.Raw(), "properties.metadata", []byte(objectMetaSchema))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", r.Kind, err)
	}
	return out, nil
}
