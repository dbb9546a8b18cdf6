package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// native is a definition in the native format. A CustomResourceDefinition
// is translated into one, so every check runs on this shape.
type native struct {
	Group      string          `json:"group"`
	Kind       string          `json:"kind"`
	ListKind   string          `json:"listKind"`
	Plural     string          `json:"plural"`
	Singular   string          `json:"singular"`
	ShortNames []string        `json:"shortNames"`
	Categories []string        `json:"categories"`
	Scope      string          `json:"scope"`
	Versions   []nativeVersion `json:"versions"`

	// webhook is a CRD's conversion webhook (nil in the native format,
	// which has none).
	webhook *ConversionWebhook
}

// nativeVersion is one entry of native.Versions.
type nativeVersion struct {
	Name               string            `json:"name"`
	Served             *bool             `json:"served"` // nil: true in the native format
	Storage            bool              `json:"storage"`
	Deprecated         bool              `json:"deprecated"`
	DeprecationWarning *string           `json:"deprecationWarning"`
	Schema             json.RawMessage   `json:"schema"`
	PrinterColumns     []PrinterColumn   `json:"printerColumns"`
	Subresources       nativeSubres      `json:"subresources"`
	SelectableFields   []selectableField `json:"selectableFields"`
}

// nativeSubres is the subresources block. status is written {} as in a
// CustomResourceDefinition; true and false are accepted too.
type nativeSubres struct {
	Status json.RawMessage `json:"status"`
	Scale  *Scale          `json:"scale"`
}

// status reads the status switch: {} or true is on; absent, null or false is off.
func (s nativeSubres) status() (bool, error) {
	var v any
	_ = json.Unmarshal(s.Status, &v) // fails only when absent, leaving v nil
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case map[string]any:
		if len(v) == 0 {
			return true, nil
		}
	}
	return false, errors.New("subresources.status: must be {} or true (on), or false or absent (off)")
}

// selectableField is one selectable field: a JSON path, written either as a
// string or, as in a CustomResourceDefinition, as {jsonPath: ...}.
type selectableField struct {
	JSONPath string `json:"jsonPath"`
}

// UnmarshalJSON accepts both spellings of a selectable field.
func (f *selectableField) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &f.JSONPath)
	}
	type plain selectableField // without this method, to avoid recursion
	return strictUnmarshal(b, (*plain)(f))
}

// decodeNative reads a native-format document. Unknown fields are refused
// at every level but inside schemas, so a typo never silently drops a
// setting. It returns a Problem when the document cannot be read, and the
// reasons to refuse it that only the native format has.
func decodeNative(d document) (*native, []string, *Problem) {
	var n native
	if err := strictUnmarshal(d.json, &n); err != nil {
		p := decodeProblem(d, err)
		return nil, nil, &p
	}
	for i := range n.Versions {
		if n.Versions[i].Served == nil {
			n.Versions[i].Served = ptr(true)
		}
	}
	return &n, nativeReasons(d, &n), nil
}

// nativeReasons returns the rules only the native format has. The group
// must be written out, even as "": a forgotten group would otherwise put
// the kind in the core group without a word.
func nativeReasons(d document, n *native) []string {
	var r reasons
	var group struct {
		Group *string `json:"group"`
	}
	if json.Unmarshal(d.json, &group) == nil && group.Group == nil {
		r.addf(`group is required ("" for the core group)`)
	}
	if n.Kind != "" && !isKindIdentifier(n.Kind) {
		r.addf("kind %q: must start with an upper-case letter and hold only letters and digits", n.Kind)
	}
	return r
}

// isKindIdentifier is the native format's rule for a kind: stricter than
// Kubernetes' (which allows "-"), because kinds become identifiers in
// generated clients and in kubectl output.
func isKindIdentifier(kind string) bool {
	for i, r := range kind {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r))
		if !ok || i == 0 && !unicode.IsUpper(r) {
			return false
		}
	}
	return kind != ""
}

// strictUnmarshal decodes JSON refusing unknown fields.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// decodeProblem turns a json decoding error into a Problem that speaks of
// the document's fields rather than Go types.
func decodeProblem(d document, err error) Problem {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		return d.keyProblem(lastField(field), fmt.Sprintf("%s: must be %s, not %s",
			field, jsonTypeName(typeErr.Type), typeErr.Value))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return d.keyProblem(strings.Trim(name, `"`), "unknown field "+name)
	}
	return d.problem(strings.TrimPrefix(err.Error(), "json: "))
}

// keyProblem builds a Problem on the line that sets key, when that line is known.
func (d document) keyProblem(key, reason string) Problem {
	p := d.problem(reason)
	if line := d.lineOfKey(key); line > 0 {
		p.Line = line
	}
	return p
}

func lastField(path string) string {
	return path[strings.LastIndex(path, ".")+1:]
}

// jsonTypeName names a Go type the way a YAML or JSON author thinks of it.
func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	default:
		return "a number"
	}
}

func ptr[T any](v T) *T { return &v }
