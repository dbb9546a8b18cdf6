package httpapi

import (
	"net/http"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// scaleKind is the kind of the scale subresource, which has no protobuf
// form here: only custom resources have a scale subresource in dynapi, and
// kube-apiserver answers theirs in JSON or YAML.
var scaleKind = engine.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// serveScale serves /{name}/scale of a version that declares a scale
// subresource: get, update and patch an autoscaling/v1 Scale.
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, req request) {
	switch r.Method {
	case http.MethodGet:
		s.handleGetScale(w, r, req)
	case http.MethodPut:
		f, body, opts, err := readWrite(r, scaleKind)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := s.service.UpdateScale(r.Context(), req.target, req.name, body, opts)
		s.writeResult(w, r, f, http.StatusOK, res, err)
	case http.MethodPatch:
		s.handlePatchScale(w, r, req)
	default:
		s.writeError(w, r, errMethodNotAllowed(r))
	}
}

func (s *Server) handleGetScale(w http.ResponseWriter, r *http.Request, req request) {
	f, err := negotiateWrite(r, scaleKind) // a Scale, not a Table of the object
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	scale, err := s.service.GetScale(r.Context(), req.target, req.name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeObject(w, r, f, http.StatusOK, scale, nil)
}

// readScalePatch reads what a patch of /scale needs before it writes: the
// answer's representation, the patch (compacted) and the options.
func readScalePatch(r *http.Request) (format, []byte, resource.WriteOptions, error) {
	f, err := negotiateWrite(r, scaleKind)
	if err != nil {
		return f, nil, resource.WriteOptions{}, err
	}
	patch, err := readLimited(r)
	if err != nil {
		return f, nil, resource.WriteOptions{}, err
	}
	if patch, err = compactJSON(patch); err != nil {
		return f, nil, resource.WriteOptions{}, err
	}
	auditBody(r, patch)
	opts, err := writeOptions(r, contentType(r))
	return f, patch, opts, err
}

func (s *Server) handlePatchScale(w http.ResponseWriter, r *http.Request, req request) {
	f, patch, opts, err := readScalePatch(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.service.PatchScale(r.Context(), req.target, req.name, contentType(r), patch, opts)
	s.writeResult(w, r, f, http.StatusOK, res, err)
}
