package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine/kubeproto"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/selector"
)

// writeOptions reads dryRun, fieldValidation, fieldManager and force of a
// create, update or patch (of patchType). Errors: BadRequest, Invalid.
func writeOptions(r *http.Request, patchType string) (resource.WriteOptions, error) {
	q := requestInfoFrom(r).Query
	dryRun, err := parseDryRun(q["dryRun"])
	if err != nil {
		return resource.WriteOptions{}, err
	}
	fv := q.Get("fieldValidation")
	switch fv {
	case "":
		fv = resource.FieldValidationWarn
	case resource.FieldValidationStrict, resource.FieldValidationWarn, resource.FieldValidationIgnore:
	default:
		return resource.WriteOptions{}, engine.Errorf(engine.CodeBadRequest,
			"fieldValidation must be one of Ignore, Warn, Strict: %q", fv)
	}
	opts := resource.WriteOptions{DryRun: dryRun, FieldValidation: fv}
	if err := managerOptions(r, patchType, &opts); err != nil {
		return resource.WriteOptions{}, err
	}
	return opts, nil
}

func parseDryRun(values []string) (bool, error) {
	for _, v := range values {
		if v != "All" {
			return false, engine.Errorf(engine.CodeBadRequest, "dryRun: unsupported value %q: supported values: \"All\"", v)
		}
	}
	return len(values) > 0, nil
}

// listOptions reads labelSelector, fieldSelector, limit and continue, and
// checks timeoutSeconds, which only a watch uses but kube-apiserver reads
// (and refuses) on every request with ListOptions: first, as its query
// conversion does. Errors: BadRequest.
func listOptions(r *http.Request) (engine.ListOptions, error) {
	q := requestInfoFrom(r).Query
	var opts engine.ListOptions
	if _, err := timeoutSeconds(q); err != nil {
		return opts, err
	}
	var err error
	if opts.Labels, err = selector.ParseLabels(q.Get("labelSelector")); err != nil {
		return opts, err
	}
	if opts.Fields, err = selector.ParseFields(q.Get("fieldSelector")); err != nil {
		return opts, err
	}
	if l := q.Get("limit"); l != "" {
		if opts.Limit, err = strconv.ParseInt(l, 10, 64); err != nil || opts.Limit < 0 {
			return opts, engine.Errorf(engine.CodeBadRequest, "limit must be a non-negative integer: %q", l)
		}
	}
	opts.Continue = q.Get("continue")
	opts.ResourceVersion = q.Get("resourceVersion")
	opts.ResourceVersionMatch = q.Get("resourceVersionMatch")
	return opts, nil
}

// timeoutSeconds reads timeoutSeconds as kube-apiserver's query conversion
// does (runtime.Convert_Slice_string_To_Pointer_int64): nil when absent,
// else its first value, even empty, as an int64. Errors: BadRequest with
// strconv's message, which kube-apiserver answers.
func timeoutSeconds(q url.Values) (*int64, error) {
	values := q["timeoutSeconds"]
	if len(values) == 0 {
		return nil, nil
	}
	secs, err := strconv.ParseInt(values[0], 10, 64)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "%v", err)
	}
	return &secs, nil
}

// checkListOptions applies kube-apiserver's rules to resourceVersion and
// resourceVersionMatch of a list (not a watch). Errors: BadRequest for a
// malformed resourceVersion, Invalid (kind ListOptions) for a forbidden mix.
func checkListOptions(opts engine.ListOptions, r *http.Request) error {
	if rv := opts.ResourceVersion; rv != "" && rv != "0" {
		if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
			return engine.Errorf(engine.CodeBadRequest, "invalid resource version: %q", rv)
		}
	}
	var causes []engine.FieldError
	forbid := func(field, msg string) {
		causes = append(causes, engine.FieldError{Type: engine.CauseForbidden, Path: field, Message: "Forbidden: " + msg})
	}
	switch match := opts.ResourceVersionMatch; {
	case match == "":
	case opts.ResourceVersion == "":
		forbid("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")
	case opts.Continue != "":
		forbid("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
	case match != engine.MatchNotOlderThan && match != engine.MatchExact:
		causes = append(causes, engine.FieldError{Type: engine.CauseNotSupported, Path: "resourceVersionMatch",
			Message: fmt.Sprintf("Unsupported value: %q: supported values: %q, %q", match, engine.MatchExact, engine.MatchNotOlderThan)})
	case match == engine.MatchExact && opts.ResourceVersion == "0":
		forbid("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
	}
	if requestInfoFrom(r).Query.Has("sendInitialEvents") {
		forbid("sendInitialEvents", "sendInitialEvents is forbidden for list")
	}
	if len(causes) > 0 {
		return engine.NewInvalid("meta.k8s.io", "ListOptions", "", causes)
	}
	return nil
}

// deleteParams are a delete's options, and whether the client asked for
// cascading deletion the old way (orphanDependents=false), which changes
// the answer's code.
type deleteParams struct {
	resource.DeleteOptions
	cascade bool
}

// deleteOptions reads a delete's options from its query and its
// DeleteOptions body, and validates them as kube-apiserver does.
// Errors: BadRequest, Invalid.
func deleteOptions(r *http.Request) (deleteParams, error) {
	var p deleteParams
	var opts metav1.DeleteOptions
	q := requestInfoFrom(r).Query
	opts.DryRun = q["dryRun"]
	if v := q.Get("orphanDependents"); v != "" {
		orphan, err := strconv.ParseBool(v)
		if err != nil {
			return p, engine.Errorf(engine.CodeBadRequest, "invalid orphanDependents %q: %v", v, err)
		}
		opts.OrphanDependents = &orphan
	}
	if v, ok := q["propagationPolicy"]; ok && len(v) > 0 {
		opts.PropagationPolicy = (*metav1.DeletionPropagation)(&v[0])
	}
	if err := readDeleteBody(r, &opts); err != nil {
		return p, err
	}
	var err error
	if p.DryRun, err = parseDryRun(opts.DryRun); err != nil {
		return p, err
	}
	if causes := meta.ValidateDeleteOptions(&opts); len(causes) > 0 {
		return p, engine.NewInvalid("meta.k8s.io", "DeleteOptions", "", causes)
	}
	if o := opts.OrphanDependents; o != nil {
		// Deprecated: true is the Orphan policy; false asks for the
		// dependents to go (and a 202, see handleDelete).
		p.cascade = !*o
		if *o {
			p.PropagationPolicy = resource.PropagationOrphan
		}
	}
	if v := opts.PropagationPolicy; v != nil {
		p.PropagationPolicy = string(*v)
	}
	if pre := opts.Preconditions; pre != nil && pre.UID != nil {
		p.PreconditionUID = string(*pre.UID)
	}
	if pre := opts.Preconditions; pre != nil && pre.ResourceVersion != nil {
		p.PreconditionResourceVersion = *pre.ResourceVersion
	}
	return p, nil
}

// readDeleteBody reads a DeleteOptions body, which kubectl and client-go
// send with DELETE, over the options of the query. Its kind, when set,
// must be DeleteOptions: kube-apiserver's decoder refuses another with 400.
func readDeleteBody(r *http.Request, opts *metav1.DeleteOptions) error {
	body, err := readLimited(r)
	if err != nil || len(body) == 0 {
		return err
	}
	if contentType(r) == kubeproto.MediaType {
		// client-go's typed clients send their DeleteOptions as protobuf.
		if body, err = kubeproto.ToJSON(body); err != nil {
			return err
		}
	}
	auditBody(r, body)
	queryDryRun := opts.DryRun
	if err := yaml.Unmarshal(body, opts); err != nil {
		return engine.Errorf(engine.CodeBadRequest, "invalid DeleteOptions: %v", err)
	}
	if kind := opts.Kind; kind != "" && kind != "DeleteOptions" {
		return engine.Errorf(engine.CodeBadRequest, "the body of a delete must be a DeleteOptions, not a %q", kind)
	}
	opts.DryRun = append(queryDryRun, opts.DryRun...)
	return nil
}
