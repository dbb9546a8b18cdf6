package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/jsonguard"
	"github.com/dynapi/dynapi/engine/kubeproto"
	"github.com/dynapi/dynapi/engine/resource"
)

// maxBodyBytes is kube-apiserver's limit on a request body (3 MiB), the
// limit of an object after a patch too.
const maxBodyBytes = resource.MaxObjectBytes

// readBody reads a create or update body as JSON, converting YAML, and
// the duplicate keys of a YAML body (see yamlDuplicates).
// Errors: RequestEntityTooLarge, UnsupportedMediaType, BadRequest.
func readBody(r *http.Request) ([]byte, []string, error) {
	mediaType := contentType(r)
	if mediaType != "application/json" && mediaType != "application/yaml" && mediaType != kubeproto.MediaType {
		return nil, nil, engine.Errorf(engine.CodeUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	body, err := readLimited(r)
	if err != nil {
		return nil, nil, err
	}
	var dups []string
	switch mediaType {
	case "application/yaml":
		dups = yamlDuplicates(body)
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return nil, nil, engine.Errorf(engine.CodeBadRequest, "error converting YAML to JSON: %v", err)
		}
	case kubeproto.MediaType:
		// kubectl's typed clients (kubectl create namespace) send protobuf
		// and do not fall back to JSON.
		if body, err = kubeproto.ToJSON(body); err != nil {
			return nil, nil, err
		}
	}
	if body, err = compactJSON(body); err != nil {
		return nil, nil, err
	}
	auditBody(r, body)
	return body, dups, nil
}

// readPatch reads a PATCH body for t and its patch type, and the
// duplicate keys of an apply patch. Errors: as readBody.
func readPatch(r *http.Request, t resource.Target) (string, []byte, []string, error) {
	mediaType := contentType(r)
	if !slices.Contains(resource.PatchTypes(t), mediaType) {
		return "", nil, nil, resource.ErrPatchType(t)
	}
	body, err := readLimited(r)
	if err != nil {
		return "", nil, nil, err
	}
	var dups []string
	if mediaType == resource.ApplyPatch {
		dups = yamlDuplicates(body)
		body, err = applyPatchJSON(body)
	} else {
		body, err = compactJSON(body)
	}
	if err != nil {
		return "", nil, nil, err
	}
	auditBody(r, body)
	return mediaType, body, dups, nil
}

// applyPatchJSON turns an apply patch (YAML, or JSON which is YAML) into
// a JSON object. Errors: BadRequest.
func applyPatchJSON(body []byte) ([]byte, error) {
	out, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "error decoding YAML: %v", err)
	}
	if trimmed := bytes.TrimSpace(out); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, engine.Errorf(engine.CodeBadRequest, "the apply patch must be an object")
	}
	return compactJSON(out)
}

// yamlDuplicates are the duplicate keys of a YAML document as the strict
// decoder kube-apiserver runs beside the lenient one words them (`line 6:
// key "name" already set in map`), one per line of its error, as
// kube-apiserver's parseYAMLWarnings splits it.
func yamlDuplicates(body []byte) []string {
	_, err := yaml.YAMLToJSONStrict(body)
	if err == nil {
		return nil
	}
	_, list, found := strings.Cut(err.Error(), "yaml: unmarshal errors:\n")
	if !found {
		return nil // not a duplicate: the lenient decoder reports it
	}
	var lines []string
	for _, l := range strings.Split(list, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func contentType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "application/json"
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return mediaType
}

func readLimited(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, engine.Errorf(engine.CodeRequestEntityTooLarge, "Request entity too large: limit is %d", maxBodyBytes) // kube-apiserver's words
	}
	if errors.Is(err, os.ErrDeadlineExceeded) { // the request timeout, see withTimeout
		return nil, errTimeout
	}
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "reading the request body: %v", err)
	}
	return body, nil
}

// compactJSON checks the body is well-formed JSON (gjson never checks) and
// reports where it is not. It replaces what is not UTF-8 and lone
// surrogates with U+FFFD, as kube-apiserver's decoder does.
func compactJSON(body []byte) ([]byte, error) {
	body, err := jsonguard.Compact(body)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "the request body is not valid JSON: %v", err)
	}
	return jsonguard.Normalize(body), nil
}

// storableSegments reports whether every path segment is UTF-8 without
// U+0000. No object's name or namespace can be otherwise (PostgreSQL's
// text cannot hold it), so another path is answered 404, as
// kube-apiserver answers a name it does not store.
func storableSegments(parts []string) bool {
	return !slices.ContainsFunc(parts, unstorableText)
}
