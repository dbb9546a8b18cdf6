package httpapi

import (
	"encoding/csv"
	"net/http"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/table"
)

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, req request) {
	f, err := negotiate(r, forObject, kindOf(req.target))
	var tb *table.Builder
	if err == nil && (f.kind == formatTable || f.kind == formatCSV) {
		tb, err = tableBuilder(r, req, f)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	obj, err := s.service.Get(r.Context(), req.target, req.name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.kind == formatCSV {
		w.Header().Set("Content-Type", f.contentType())
		cw := csv.NewWriter(w)
		_ = cw.WriteAll([][]string{tb.ColumnNames(), tb.Cells(obj)}) // a failed write: the client went away
		return
	}
	if tb != nil {
		w.Header().Set("Content-Type", f.contentType())
		_, _ = w.Write(tb.Single(obj))
		return
	}
	s.writeObject(w, r, f, http.StatusOK, obj, nil)
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request, req request) {
	if requestInfoFrom(r).Verb == "watch" { // as authorized, audited and limited
		s.handleWatch(w, r, req)
		return
	}
	f, err := negotiate(r, forList, kindOf(req.target))
	var tb *table.Builder
	if err == nil && (f.kind == formatTable || f.kind == formatCSV) {
		tb, err = tableBuilder(r, req, f)
	}
	var opts engine.ListOptions
	if err == nil {
		opts, err = listOptions(r)
	}
	if err == nil {
		err = checkListOptions(opts, r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.kind == formatCSV {
		s.listCSV(w, r, req, tb, opts)
		return
	}
	lw := newListWriter(w, f, tb, req.target.APIVersion(), req.target.Resource.ListKind)
	list := s.service.List
	if f.kind == formatMeta {
		list = s.service.ListMetadata
	}
	meta, err := list(r.Context(), req.target, opts, lw.add)
	if err == nil {
		err = lw.finish(meta)
	}
	if err != nil && !lw.flushed {
		s.writeError(w, r, err)
		return
	}
	if err != nil {
		// Part of the list is on the wire: cut the connection so that the
		// client sees a failure, not a short list.
		s.logger.Error("list failed mid-stream", "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, req request) {
	f, body, opts, err := readWrite(r, kindOf(req.target))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.service.Create(r.Context(), req.target, body, opts)
	s.writeResult(w, r, f, http.StatusCreated, res, err)
}

func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request, req request) {
	f, body, opts, err := readWrite(r, kindOf(req.target))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.service.Update(r.Context(), req.target, req.name, body, opts)
	s.writeResult(w, r, f, http.StatusOK, res, err)
}

func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request, req request) {
	f, err := negotiateWrite(r, kindOf(req.target))
	var patchType string
	var patch []byte
	var dups []string
	if err == nil {
		patchType, patch, dups, err = readPatch(r, req.target)
	}
	var opts resource.WriteOptions
	if err == nil {
		opts, err = writeOptions(r, patchType)
		opts.YAMLDuplicates = dups
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.service.Patch(r.Context(), req.target, req.name, patchType, patch, opts)
	code := http.StatusOK
	if res.Created {
		code = http.StatusCreated
	}
	s.writeResult(w, r, f, code, res, err)
}

// readWrite reads what a create or an update needs before it writes: the
// answer's representation (an object of kind gvk), the options and the body.
func readWrite(r *http.Request, gvk engine.GroupVersionKind) (format, []byte, resource.WriteOptions, error) {
	f, err := negotiateWrite(r, gvk)
	var opts resource.WriteOptions
	if err == nil {
		opts, err = writeOptions(r, "")
	}
	var body []byte
	if err == nil {
		body, opts.YAMLDuplicates, err = readBody(r)
	}
	return f, body, opts, err
}

func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, f format, code int, res resource.Result, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeObject(w, r, f, code, res.Object, res.Warnings)
}

// handleDelete answers 200 with the deleted object, or with the object
// marked for deletion while finalizers remain (a namespace while it is
// emptied). As kube-apiserver, it answers 202 for a marked object only to a
// client that asked for orphanDependents=false: Kubernetes keeps 200
// otherwise, for the clients that expect it.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, req request) {
	f, err := negotiateWrite(r, kindOf(req.target))
	var p deleteParams
	if err == nil {
		p, err = deleteOptions(r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.service.Delete(r.Context(), req.target, req.name, p.DeleteOptions)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	code := http.StatusOK
	if res.Pending && p.cascade {
		code = http.StatusAccepted
	}
	s.writeObject(w, r, f, code, res.Object, nil)
}

// handleDeleteCollection answers with the list of deleted objects.
func (s *Server) handleDeleteCollection(w http.ResponseWriter, r *http.Request, req request) {
	f, err := negotiate(r, forList, kindOf(req.target))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	lo, err := listOptions(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts, err := deleteOptions(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	deleted, err := s.service.DeleteCollection(r.Context(), req.target, lo, opts.DeleteOptions)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.kind == formatTable || f.kind == formatMeta || f.kind == formatCSV {
		f = format{kind: formatJSON} // the deleted objects, not a Table of them
	}
	lw := newListWriter(w, f, nil, req.target.APIVersion(), req.target.Resource.ListKind)
	for _, obj := range deleted {
		_ = lw.add(obj) // adding to a buffer until flushed; a write error surfaces in finish
	}
	if err := lw.finish(engine.ListMeta{}); err != nil {
		s.logger.Warn("deletecollection response not sent", "err", err)
	}
}
