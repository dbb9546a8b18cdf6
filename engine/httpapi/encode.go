package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kubeproto"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/table"
)

// format is a response representation chosen from the Accept header.
type format struct {
	kind formatKind
	// table is the apiVersion of a Table (meta.k8s.io/v1 or v1beta1).
	table string
	// meta is the apiVersion of a PartialObjectMetadata or
	// PartialObjectMetadataList (meta.k8s.io/v1 or v1beta1).
	meta string
	// list says that formatMeta is a PartialObjectMetadataList.
	list bool
}

type formatKind int

const (
	formatJSON formatKind = iota
	formatYAML
	formatTable
	formatMeta
	formatCSV      // text/csv: the Table's columns and rows (table is set)
	formatProtobuf // Kubernetes' protobuf, for the kinds kubeproto encodes
)

// endpoint is what a response holds, which decides the representations
// (as=...) that fit it.
type endpoint int

const (
	forObject endpoint = iota // one object: get, and the answer to a write
	forList                   // a list
	forWatch                  // watch events, each holding one object
	forStatus                 // an error's Status, whatever the request was
	forReview                 // a review, which has no metadata: no Table, no PartialObjectMetadata
)

// notAcceptable lists what negotiate can serve.
const notAcceptable = "only the following media types are accepted: application/json, application/yaml, " +
	"application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, " +
	"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, text/csv, " +
	kubeproto.MediaType + " (built-in kinds only)"

// negotiate picks the representation of a response holding objects of
// kind gvk from Accept, as the alternate representations proposal and
// kube-apiserver do: media ranges are tried in order and the first that
// can be served for the endpoint e wins; media ranges asking for a
// representation dynapi lacks (protobuf of a kind without a protobuf form,
// a custom resource's, as kube-apiserver's CRD handler) or one that does
// not fit e (a PartialObjectMetadataList for one object) are passed over.
// Errors: NotAcceptable when none fits.
func negotiate(r *http.Request, e endpoint, gvk engine.GroupVersionKind) (format, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return format{kind: formatJSON}, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if f, ok := negotiateOne(mediaType, params, e, gvk); ok {
			return f, nil
		}
	}
	if e == forReview {
		return format{}, engine.Errorf(engine.CodeNotAcceptable, notAcceptableReview)
	}
	return format{}, engine.Errorf(engine.CodeNotAcceptable, notAcceptable)
}

// notAcceptableReview is kube-apiserver's answer to a review asked for in
// a representation a review has not (a Table: its storage has no table
// convertor): its serializers' media types.
const notAcceptableReview = "only the following media types are accepted: application/json, application/yaml, " + kubeproto.MediaType

// negotiateOne says whether one media range can be served for e, and how.
func negotiateOne(mediaType string, params map[string]string, e endpoint, gvk engine.GroupVersionKind) (format, bool) {
	if as := params["as"]; as != "" {
		return negotiateAs(mediaType, as, params, e)
	}
	switch mediaType {
	case "application/json", "application/*", "*/*":
		return format{kind: formatJSON}, true
	case "application/yaml":
		return format{kind: formatYAML}, true
	case "text/csv":
		return format{kind: formatCSV, table: table.APIVersionV1}, e != forStatus && e != forReview
	case kubeproto.MediaType:
		return format{kind: formatProtobuf}, e == forReview || kubeproto.Encodes(gvk)
	}
	return format{}, false
}

// negotiateAs serves the alternate representations of meta.k8s.io.
func negotiateAs(mediaType, as string, params map[string]string, e endpoint) (format, bool) {
	v := params["v"]
	if e == forStatus || e == forReview || mediaType != "application/json" || params["g"] != "meta.k8s.io" || (v != "v1" && v != "v1beta1") {
		return format{}, false
	}
	switch {
	case as == "Table":
		return format{kind: formatTable, table: "meta.k8s.io/" + v}, true
	case as == "PartialObjectMetadata" && e != forList:
		return format{kind: formatMeta, meta: "meta.k8s.io/" + v}, true
	case as == "PartialObjectMetadataList" && e == forList:
		return format{kind: formatMeta, meta: "meta.k8s.io/" + v, list: true}, true
	}
	return format{}, false
}

// contentType is the Content-Type of a response in f.
func (f format) contentType() string {
	switch f.kind {
	case formatYAML:
		return "application/yaml"
	case formatTable:
		return "application/json;as=Table;v=" + strings.TrimPrefix(f.table, "meta.k8s.io/") + ";g=meta.k8s.io"
	case formatCSV:
		return csvContentType
	case formatProtobuf:
		return kubeproto.MediaType
	case formatMeta:
		as := "PartialObjectMetadata"
		if f.list {
			as += "List"
		}
		return "application/json;as=" + as + ";v=" + strings.TrimPrefix(f.meta, "meta.k8s.io/") + ";g=meta.k8s.io"
	}
	return "application/json"
}

// partialObjectMetadata renders obj as a PartialObjectMetadata of version
// apiVersion: its metadata only, cut out of obj without decoding it.
func partialObjectMetadata(apiVersion string, obj []byte) []byte {
	return appendPartial(make([]byte, 0, 96+len(obj)), apiVersion, resource.MetadataOf(obj))
}

// appendPartial appends a PartialObjectMetadata holding meta, the JSON of
// an object's metadata, in apiVersion.
func appendPartial(buf []byte, apiVersion string, meta []byte) []byte {
	return appendPartialWith(buf, partialHead(apiVersion), meta)
}

// partialHead is the start of a PartialObjectMetadata in apiVersion, up to
// its metadata: a list writes it before each object's.
func partialHead(apiVersion string) []byte {
	head := append([]byte(`{"kind":"PartialObjectMetadata","apiVersion":`), strconv.Quote(apiVersion)...)
	return append(head, `,"metadata":`...)
}

// appendPartialWith appends a PartialObjectMetadata that starts with head
// (partialHead) and holds meta.
func appendPartialWith(buf, head, meta []byte) []byte {
	return append(append(append(buf, head...), meta...), '}')
}

// tableBuilder prepares a Table of the target version's printer columns.
// Errors: BadRequest for a bad includeObject.
func tableBuilder(r *http.Request, req request, f format) (*table.Builder, error) {
	include := requestInfoFrom(r).Query.Get("includeObject")
	if f.kind == formatCSV {
		include = "None" // cells only
	}
	return table.New(req.target.Version.PrinterColumns, f.table, include, time.Now())
}

// negotiateTable is negotiate, with the table builder a Table or CSV
// answer needs (nil for any other). Errors: as negotiate and tableBuilder.
func negotiateTable(r *http.Request, req request, e endpoint) (format, *table.Builder, error) {
	f, err := negotiate(r, e, kindOf(req.target))
	if err != nil || f.kind != formatTable && f.kind != formatCSV {
		return f, nil, err
	}
	tb, err := tableBuilder(r, req, f)
	return f, tb, err
}

// negotiateWrite is negotiate for a write answered with an object of
// kind gvk, done before the write so that a client that cannot read the
// answer learns it before anything changes, as kube-apiserver does. A
// Table is for reads: a write answers with the object.
func negotiateWrite(r *http.Request, gvk engine.GroupVersionKind) (format, error) {
	f, err := negotiate(r, forObject, gvk)
	if f.kind == formatTable || f.kind == formatCSV {
		f = format{kind: formatJSON}
	}
	return f, err
}

// writeObject writes one object (JSON) in representation f.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, f format, code int, obj []byte, warnings []string) {
	writeWarnings(w, warnings)
	var err error
	switch f.kind {
	case formatMeta:
		obj = partialObjectMetadata(f.meta, obj)
	case formatYAML:
		obj, err = yaml.JSONToYAML(obj)
	case formatProtobuf:
		obj, err = kubeproto.FromJSON(obj)
	}
	if err != nil {
		s.writeError(w, r, fmt.Errorf("encode the answer as %s: %w", f.contentType(), err))
		return
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

// kindOf is the kind of the objects t serves, which decides whether they
// have a protobuf form.
func kindOf(t resource.Target) engine.GroupVersionKind {
	return engine.GroupVersionKind{Group: t.Resource.Group, Version: t.Version.Name, Kind: t.Resource.Kind}
}
