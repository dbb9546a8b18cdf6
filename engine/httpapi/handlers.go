package httpapi

import (
	"encoding/csv"
	"net/http"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/table"
)

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, req request) {
	f, tb, err := negotiateTable(r, req, forObject)
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
	f, tb, opts, err := readList(r, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.kind == formatCSV {
		s.listCSV(w, r, req, tb, opts)
		return
	}
	lw := newListWriter(w, f, tb, req.target.APIVersion(), req.target.Resource.ListKind)
	s.failStream(w, r, lw, "list", s.streamList(r, req, f, opts, lw))
}

// failStream answers err, the error of a list streamed through lw, when
// there is one: as a Status while nothing is sent yet; once part of the
// list is on the wire, by cutting the connection, so that the client sees
// a failure, not a short list.
func (s *Server) failStream(w http.ResponseWriter, r *http.Request, lw *listWriter, what string, err error) {
	if err == nil {
		return
	}
	if !lw.flushed {
		s.writeError(w, r, err)
		return
	}
	s.logger.Error(what+" failed mid-stream", "path", r.URL.Path, "err", err)
	panic(http.ErrAbortHandler)
}

// readList reads what a list needs before it lists: the answer's
// representation, its table builder (Table or CSV) and the list options.
func readList(r *http.Request, req request) (format, *table.Builder, engine.ListOptions, error) {
	f, tb, err := negotiateTable(r, req, forList)
	if err != nil {
		return f, nil, engine.ListOptions{}, err
	}
	opts, err := listOptions(r)
	if err != nil {
		return f, nil, opts, err
	}
	return f, tb, opts, checkListOptions(opts, r)
}

// streamList lists into lw (its metadata alone for PartialObjectMetadata)
// and ends the list.
func (s *Server) streamList(r *http.Request, req request, f format, opts engine.ListOptions, lw *listWriter) error {
	list := s.service.List
	if f.kind == formatMeta {
		list = s.service.ListMetadata
	}
	opts.Transient = true // lw.add copies each item into the answer
	meta, err := list(r.Context(), req.target, opts, lw.add)
	if err != nil {
		return err
	}
	return lw.finish(meta)
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
	f, patchType, patch, opts, err := readPatchWrite(r, req.target)
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

// readPatchWrite reads what a patch needs before it writes: the answer's
// representation, the patch's type and body, and the options.
func readPatchWrite(r *http.Request, t resource.Target) (format, string, []byte, resource.WriteOptions, error) {
	var opts resource.WriteOptions
	f, err := negotiateWrite(r, kindOf(t))
	if err != nil {
		return f, "", nil, opts, err
	}
	patchType, patch, dups, err := readPatch(r, t)
	if err != nil {
		return f, "", nil, opts, err
	}
	opts, err = writeOptions(r, patchType)
	opts.YAMLDuplicates = dups
	return f, patchType, patch, opts, err
}

// readWrite reads what a create or an update needs before it writes: the
// answer's representation (an object of kind gvk), the options and the body.
func readWrite(r *http.Request, gvk engine.GroupVersionKind) (format, []byte, resource.WriteOptions, error) {
	f, err := negotiateWrite(r, gvk)
	if err != nil {
		return f, nil, resource.WriteOptions{}, err
	}
	opts, err := writeOptions(r, "")
	if err != nil {
		return f, nil, opts, err
	}
	var body []byte
	body, opts.YAMLDuplicates, err = readBody(r)
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
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := deleteOptions(r)
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
	if f.kind == formatTable || f.kind == formatMeta || f.kind == formatCSV {
		f = format{kind: formatJSON} // the deleted objects, not a Table of them
	}
	// The deleted objects stream out as they go, as a list's do: memory
	// holds a page of them, however large the collection.
	lw := newListWriter(w, f, nil, req.target.APIVersion(), req.target.Resource.ListKind)
	err = s.service.DeleteCollection(r.Context(), req.target, lo, opts.DeleteOptions, func(obj []byte) error {
		_ = lw.add(obj) // a client gone away does not stop the deletes; finish reports it
		return nil
	})
	if err != nil {
		s.failStream(w, r, lw, "deletecollection", err)
		return
	}
	if err := lw.finish(engine.ListMeta{}); err != nil {
		s.logger.Warn("deletecollection response not sent", "err", err)
	}
}
