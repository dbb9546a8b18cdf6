package patch

import (
	"fmt"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// MaxJSONOperations bounds the operations of one JSON patch, as
// kube-apiserver bounds them.
const MaxJSONOperations = 10000

// JSON applies p, a JSON patch, to obj. Its copy operations add at most
// maxCopyBytes in all (evanphx/json-patch's AccumulatedCopySizeLimit,
// kube-apiserver's JSONPatchMaxCopyBytes, which is its request body
// limit). Errors: BadRequest for a malformed patch, RequestEntityTooLarge
// for one of more than MaxJSONOperations operations, Invalid for a patch
// that does not apply.
func JSON(obj, p []byte, maxCopyBytes int64) ([]byte, error) {
	ops, err := jsonpatch.DecodePatch(p)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid JSON patch: %v", err)
	}
	if len(ops) > MaxJSONOperations { // kube-apiserver's words
		return nil, engine.Errorf(engine.CodeRequestEntityTooLarge,
			"The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONOperations, len(ops))
	}
	return applyJSON(ops, obj, maxCopyBytes)
}

// applyJSON applies a decoded JSON patch. Errors: BadRequest for an
// add, replace or test without a value (evanphx/json-patch dereferences
// the missing value of a test at the root: a fuzz crasher), Invalid for a
// patch that does not apply.
func applyJSON(ops jsonpatch.Patch, obj []byte, maxCopyBytes int64) ([]byte, error) {
	for i, op := range ops {
		switch op.Kind() {
		case "add", "replace", "test":
			if _, ok := op["value"]; !ok {
				return nil, engine.Errorf(engine.CodeBadRequest, "invalid JSON patch: operation %d (%s) has no value", i, op.Kind())
			}
		}
	}
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = maxCopyBytes
	out, err := ops.ApplyWithOptions(obj, opts)
	if err != nil {
		return nil, &engine.Error{Code: engine.CodeInvalid, Message: "the JSON patch could not be applied: " + err.Error()}
	}
	return out, nil
}

// jsonOpFields are the members of a JSON patch operation.
var jsonOpFields = []string{"op", "path", "value", "from"}

// JSONFieldProblems reports the unknown and duplicate members of a JSON
// patch's operations, in the order kube-apiserver's strict decoder finds
// them (`json patch unknown field "[0].foo"`, `json patch duplicate field
// "[1].path"`).
func JSONFieldProblems(p []byte) []string {
	var out []string
	for i, op := range gjson.ParseBytes(p).Array() {
		var seen []string
		op.ForEach(func(k, _ gjson.Result) bool {
			switch {
			case !slices.Contains(jsonOpFields, k.Str):
				out = append(out, fmt.Sprintf("json patch unknown field %q", fmt.Sprintf("[%d].%s", i, k.Str)))
			case slices.Contains(seen, k.Str):
				out = append(out, fmt.Sprintf("json patch duplicate field %q", fmt.Sprintf("[%d].%s", i, k.Str)))
			}
			seen = append(seen, k.Str)
			return true
		})
	}
	return out
}
