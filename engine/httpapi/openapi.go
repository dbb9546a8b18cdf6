package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/openapi"
	"github.com/dynapi/dynapi/engine/registry"
)

// openapiCache holds the documents of the last snapshot they were built for,
// so they are built once per snapshot, on first use, from the previous
// snapshot's documents.
type openapiCache struct {
	current atomic.Pointer[builtDocs]
	mu      sync.Mutex  // one build at a time
	queued  atomic.Bool // a PrepareOpenAPI build is about to start
}

type builtDocs struct {
	snap *registry.Snapshot
	docs *openapi.Docs
}

func (c *openapiCache) docs(snap *registry.Snapshot, deletes openapi.DeletesCollections) (*openapi.Docs, error) {
	if b := c.current.Load(); b != nil && b.snap == snap {
		return b.docs, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.current.Load(); b != nil && b.snap == snap {
		return b.docs, nil
	}
	var prev *openapi.Docs
	if b := c.current.Load(); b != nil {
		prev = b.docs
	}
	// Only the group versions that changed since prev are rendered again.
	docs, err := openapi.BuildFrom(prev, snap, deletes)
	if err != nil {
		return nil, err
	}
	c.current.Store(&builtDocs{snap: snap, docs: docs})
	return docs, nil
}

// handleOpenAPIRoot serves /openapi/v3: where each group version's document is.
func (s *Server) handleOpenAPIRoot(w http.ResponseWriter, r *http.Request) {
	docs, err := s.openapi.docs(s.snapshots.Load(), s.deletesCollections)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(docs.Root())
}

// handleOpenAPIGroupVersion serves /openapi/v3/{api/v1 | apis/group/version}.
// A URL with the current hash may be cached forever; a stale hash is
// redirected to the current one, as kube-apiserver does.
func (s *Server) handleOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request) {
	docs, err := s.openapi.docs(s.snapshots.Load(), s.deletesCollections)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	path := chi.URLParam(r, "*")
	doc, ok := docs.GroupVersion(path)
	if !ok {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	switch hash := requestInfoFrom(r).Query.Get("hash"); {
	case hash == "":
		w.Header().Set("Cache-Control", "no-cache, private")
	case hash != doc.Hash:
		http.Redirect(w, r, "/openapi/v3/"+path+"?hash="+doc.Hash, http.StatusMovedPermanently)
		return
	default:
		w.Header().Set("Cache-Control", "public, immutable")
	}
	write, etag := doc.Body.Write, doc.Hash
	if acceptsGzip(r) {
		write, etag = doc.Body.WriteGzip, etag+"-gzip"
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", `"`+etag+`"`)
	w.Header().Set("Vary", "Accept-Encoding")
	_ = write(w) // the client went away
}

// protobufV2 is the media type of /openapi/v2 in protobuf; kubectl asks
// for it by an older name (with "@v1.0"), which kube-apiserver takes too,
// answering with this one: Go's media type parser, and so client-go,
// refuses the "@".
const protobufV2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// handleOpenAPIV2 serves /openapi/v2, in protobuf when the client accepts
// it, else in JSON; with an ETag, so that a client's cached copy is
// answered 304.
func (s *Server) handleOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	docs, err := s.openapi.docs(s.snapshots.Load(), s.deletesCollections)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := docs.V2()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	render, contentType, tag := v2Encoding(doc, r)
	zipped := acceptsGzip(r)
	if zipped {
		tag += "-gzip"
		w.Header().Set("Content-Encoding", "gzip")
	}
	etag := `"` + tag + `"`
	w.Header().Set("Etag", etag)
	w.Header().Set("Vary", "Accept, Accept-Encoding")
	w.Header().Set("Cache-Control", "no-cache, private")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, err := render()
	if err != nil {
		w.Header().Del("Content-Encoding")
		w.Header().Del("Etag")
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", contentType)
	write := body.Write
	if zipped {
		write = body.WriteGzip
	}
	_ = write(w) // the client went away
}

// v2Encoding is how /openapi/v2 answers r: in protobuf when the client
// accepts it, else in JSON. The protobuf body is rendered after the JSON,
// by render (not for an answer 304): a JSON client never waits for it.
func v2Encoding(doc openapi.V2, r *http.Request) (render func() (openapi.Body, error), contentType, tag string) {
	if strings.Contains(r.Header.Get("Accept"), "com.github.proto-openapi.spec.v2") {
		return doc.Proto, protobufV2, doc.Hash + "-protobuf"
	}
	return func() (openapi.Body, error) { return doc.JSON(), nil }, "application/json", doc.Hash
}

// acceptsGzip reports whether the client takes a gzip answer: Go's
// clients (kubectl) send "Accept-Encoding: gzip" unless told not to.
func acceptsGzip(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(enc, ";")
		if strings.TrimSpace(name) != "gzip" {
			continue
		}
		q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		weight, err := strconv.ParseFloat(q, 64)
		return !ok || err != nil || weight > 0
	}
	return false
}

// deletesCollections is the strategies' say, for the documents.
func (s *Server) deletesCollections(gr engine.GroupResource) bool {
	return s.service.Strategy(gr).DeletesCollections()
}

// PrepareOpenAPI builds the OpenAPI documents of the current snapshot in
// the background, so that the first request after a change finds them
// built: the v3 documents, then the v2 document in JSON, of which only
// the group versions the change touched are rendered (kept packed, it
// costs little memory however few clients read it); then the new v3
// documents are packed too, and last the v2 document in protobuf, on one
// core: it costs more than the rest, only older clients read it, and
// requests keep the other cores. Calls made before the build reads the
// snapshot fold into it. built, if not nil, is called when the build is
// over (a call that folded: when the build it folded into is over):
// rendering makes garbage, which the caller may want to return.
func (s *Server) PrepareOpenAPI(built func()) {
	if s.openapi.queued.Swap(true) {
		return // a build that has not read the snapshot yet will take the newest
	}
	go func() {
		s.openapi.queued.Store(false)
		if err := s.prepareOpenAPI(); err != nil {
			s.logger.Warn("OpenAPI documents not built", "err", err)
		}
		if built != nil {
			built()
		}
	}()
}

// prepareOpenAPI builds what PrepareOpenAPI says, in that order.
func (s *Server) prepareOpenAPI() error {
	docs, err := s.openapi.docs(s.snapshots.Load(), s.deletesCollections)
	if err != nil {
		return err
	}
	v2, err := docs.V2()
	docs.Compact()
	if err != nil {
		return err
	}
	return v2.PrepareProto()
}

// BuildOpenAPI builds now the v3 OpenAPI documents of the current
// snapshot and the v2 document in JSON, on every core; PrepareOpenAPI
// packs them and renders the v2 document in protobuf after them.
func (s *Server) BuildOpenAPI() error {
	docs, err := s.openapi.docs(s.snapshots.Load(), s.deletesCollections)
	if err != nil {
		return err
	}
	_, err = docs.V2()
	return err
}
