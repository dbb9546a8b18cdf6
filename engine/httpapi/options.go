package httpapi

import (
	"net/http"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/selector"
)

// writeOptions reads dryRun and fieldValidation. Errors: BadRequest.
func writeOptions(r *http.Request) (resource.WriteOptions, error) {
	q := r.URL.Query()
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
	return resource.WriteOptions{DryRun: dryRun, FieldValidation: fv}, nil
}

func parseDryRun(values []string) (bool, error) {
	for _, v := range values {
		if v != "All" {
			return false, engine.Errorf(engine.CodeBadRequest, "dryRun: unsupported value %q: supported values: \"All\"", v)
		}
	}
	return len(values) > 0, nil
}

// listOptions reads labelSelector, fieldSelector, limit and continue.
// Errors: BadRequest.
func listOptions(r *http.Request) (engine.ListOptions, error) {
	q := r.URL.Query()
	var opts engine.ListOptions
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
	return opts, nil
}

// deleteOptions reads dryRun and the preconditions of a DeleteOptions body,
// which kubectl and client-go send with DELETE. Errors: BadRequest.
func deleteOptions(r *http.Request) (resource.DeleteOptions, error) {
	var opts resource.DeleteOptions
	dryRun, err := parseDryRun(r.URL.Query()["dryRun"])
	if err != nil {
		return opts, err
	}
	opts.DryRun = dryRun
	body, err := readLimited(r)
	if err != nil || len(body) == 0 {
		return opts, err
	}
	var wire struct {
		DryRun        []string `json:"dryRun"`
		Preconditions struct {
			UID             *string `json:"uid"`
			ResourceVersion *string `json:"resourceVersion"`
		} `json:"preconditions"`
	}
	if err := yaml.Unmarshal(body, &wire); err != nil {
		return opts, engine.Errorf(engine.CodeBadRequest, "invalid DeleteOptions: %v", err)
	}
	if dryRun, err = parseDryRun(wire.DryRun); err != nil {
		return opts, err
	}
	opts.DryRun = opts.DryRun || dryRun
	if p := wire.Preconditions.UID; p != nil {
		opts.PreconditionUID = *p
	}
	if p := wire.Preconditions.ResourceVersion; p != nil {
		opts.PreconditionResourceVersion = *p
	}
	return opts, nil
}
