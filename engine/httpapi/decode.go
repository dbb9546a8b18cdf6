package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/jsonguard"
	"github.com/dynapi/dynapi/engine/kubeproto"
	"github.com/dynapi/dynapi/engine/resource"
)

// maxBodyBytes is kube-apiserver's limit on a request body (3 MiB), the
// limit of an object after a patch too.
const maxBodyBytes = resource.MaxObjectBytes

// readBody reads a create or update body as JSON, converting YAML.
// Errors: RequestEntityTooLarge, UnsupportedMediaType, BadRequest.
func readBody(r *http.Request) ([]byte, error) {
	mediaType := contentType(r)
	if mediaType != "application/json" && mediaType != "application/yaml" && mediaType != kubeproto.MediaType {
		return nil, engine.Errorf(engine.CodeUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	body, err := readLimited(r)
	if err != nil {
		return nil, err
	}
	switch mediaType {
	case "application/yaml":
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "error converting YAML to JSON: %v", err)
		}
	case kubeproto.MediaType:
		// kubectl's typed clients (kubectl create namespace) send protobuf
		// and do not fall back to JSON.
		if body, err = kubeproto.ToJSON(body); err != nil {
			return nil, err
		}
	}
	return compactJSON(body)
}

// readPatch reads a PATCH body for t and its patch type. Errors: as readBody.
func readPatch(r *http.Request, t resource.Target) (string, []byte, error) {
	mediaType := contentType(r)
	if !slices.Contains(resource.PatchTypes(t), mediaType) {
		return "", nil, resource.ErrPatchType(t)
	}
	body, err := readLimited(r)
	if err != nil {
		return "", nil, err
	}
	if mediaType == resource.ApplyPatch {
		body, err = applyPatchJSON(body)
		return mediaType, body, err
	}
	body, err = compactJSON(body)
	return mediaType, body, err
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
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "the request body is not valid JSON: %v", err)
	}
	return jsonguard.Normalize(buf.Bytes()), nil
}

// storableSegments reports whether every path segment is UTF-8 without
// U+0000. No object's name or namespace can be otherwise (PostgreSQL's
// text cannot hold it), so another path is answered 404, as
// kube-apiserver answers a name it does not store.
func storableSegments(parts []string) bool {
	return !slices.ContainsFunc(parts, unstorableText)
}
