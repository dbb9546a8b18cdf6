package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
)

// format is a response representation chosen from the Accept header.
type format int

const (
	formatJSON format = iota
	formatYAML
)

// negotiate picks the representation of a response from Accept, as
// kube-apiserver does: the first media range it can serve wins; media ranges
// asking for another representation (as=Table, protobuf) are passed over.
// Errors: NotAcceptable.
func negotiate(r *http.Request) (format, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return formatJSON, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] != "" {
			continue
		}
		switch mediaType {
		case "application/json", "application/*", "*/*":
			return formatJSON, nil
		case "application/yaml":
			return formatYAML, nil
		}
	}
	return formatJSON, engine.Errorf(engine.CodeNotAcceptable,
		"only the following media types are accepted: application/json, application/yaml")
}

// writeObject writes one object (JSON) in the negotiated representation.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, obj []byte, warnings []string) {
	f, err := negotiate(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeWarnings(w, warnings)
	if f == formatYAML {
		if obj, err = yaml.JSONToYAML(obj); err != nil {
			s.writeError(w, r, fmt.Errorf("encode YAML: %w", err))
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(code)
	_, _ = w.Write(obj)
}

// writeWarnings sends each warning as a Warning header, in the format
// client-go prints: 299 - "text".
func writeWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", text))
	}
}
