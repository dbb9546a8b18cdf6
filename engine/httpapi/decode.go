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

// readLimited reads the request body, at most maxBodyBytes of it.
func readLimited(r *http.Request) ([]byte, error) {
	body, err := readAll(http.MaxBytesReader(nil, r.Body, maxBodyBytes), r.ContentLength)
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

// maxPresizedBody bounds the memory set aside for a body before it
// arrives: beyond it, a body's memory grows as its bytes come, so that a
// client announcing 3 MiB and sending nothing holds no more than this.
const maxPresizedBody = 64 << 10

// readAll is io.ReadAll with room for the size the client declared (its
// Content-Length; -1 when unknown) set aside at once, up to
// maxPresizedBody: a body of the usual size is read into one allocation,
// where io.ReadAll grows from 512 bytes and copies at each step. The one
// byte beyond size is where r's end is read.
func readAll(r io.Reader, size int64) ([]byte, error) {
	switch {
	case size < 0:
		size = 511 // io.ReadAll's first size
	case size > maxPresizedBody:
		size = maxPresizedBody
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
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
