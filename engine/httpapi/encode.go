package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/table"
)

// format is a response representation chosen from the Accept header.
type format struct {
	kind formatKind
	// table is the apiVersion of a Table (meta.k8s.io/v1 or v1beta1).
	table string
}

type formatKind int

const (
	formatJSON formatKind = iota
	formatYAML
	formatTable
)

// negotiate picks the representation of a response from Accept, as
// kube-apiserver does: the first media range it can serve wins; media ranges
// asking for a representation it lacks (protobuf, PartialObjectMetadata) are
// passed over. Errors: NotAcceptable.
func negotiate(r *http.Request) (format, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return format{kind: formatJSON}, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if as := params["as"]; as != "" {
			if as == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") && mediaType == "application/json" {
				return format{kind: formatTable, table: "meta.k8s.io/" + params["v"]}, nil
			}
			continue
		}
		switch mediaType {
		case "application/json", "application/*", "*/*":
			return format{kind: formatJSON}, nil
		case "application/yaml":
			return format{kind: formatYAML}, nil
		}
	}
	return format{}, engine.Errorf(engine.CodeNotAcceptable,
		"only the following media types are accepted: application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io")
}

// contentType is the Content-Type of a response in f.
func (f format) contentType() string {
	switch f.kind {
	case formatYAML:
		return "application/yaml"
	case formatTable:
		return "application/json;as=Table;v=" + strings.TrimPrefix(f.table, "meta.k8s.io/") + ";g=meta.k8s.io"
	}
	return "application/json"
}

// tableBuilder prepares a Table of the target version's printer columns.
// Errors: BadRequest for a bad includeObject.
func tableBuilder(r *http.Request, req request, f format) (*table.Builder, error) {
	return table.New(req.target.Version.PrinterColumns, f.table, r.URL.Query().Get("includeObject"), time.Now())
}

// negotiateWrite is negotiate for a write, done before the write so that
// a client that cannot read the answer learns it before anything changes,
// as kube-apiserver does. A Table is for reads: a write answers with the
// object.
func negotiateWrite(r *http.Request) (format, error) {
	f, err := negotiate(r)
	if f.kind == formatTable {
		f = format{kind: formatJSON}
	}
	return f, err
}

// writeObject writes one object (JSON) in representation f.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, f format, code int, obj []byte, warnings []string) {
	writeWarnings(w, warnings)
	if f.kind == formatYAML {
		var err error
		if obj, err = yaml.JSONToYAML(obj); err != nil {
			s.writeError(w, r, fmt.Errorf("encode YAML: %w", err))
			return
		}
	}
	w.Header().Set("Content-Type", f.contentType())
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
