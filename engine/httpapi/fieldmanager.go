package httpapi

import (
	"bytes"
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/resource"
)

// managerOptions reads fieldManager and force into opts and checks them as
// kube-apiserver checks CreateOptions, UpdateOptions and PatchOptions: at
// most 128 printable characters, required for apply, force only with
// apply. Without fieldManager the manager is the User-Agent's product
// name ("kubectl" of "kubectl/v1.37.0 ..."), as kube-apiserver records it.
// Errors: BadRequest (force not a boolean), Invalid.
func managerOptions(r *http.Request, patchType string, opts *resource.WriteOptions) error {
	q := requestInfoFrom(r).Query
	manager := q.Get("fieldManager")
	var force *bool
	if v := q.Get("force"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return engine.Errorf(engine.CodeBadRequest, "force: invalid value %q", v)
		}
		force = &b
	}
	var errs field.ErrorList
	kind := "CreateOptions"
	switch {
	case r.Method == http.MethodPatch:
		kind = "PatchOptions"
		errs = metav1validation.ValidatePatchOptions(&metav1.PatchOptions{FieldManager: manager, Force: force}, types.PatchType(patchType))
	case r.Method == http.MethodPut:
		kind = "UpdateOptions"
		fallthrough
	default:
		errs = metav1validation.ValidateFieldManager(manager, field.NewPath("fieldManager"))
	}
	if len(errs) > 0 {
		return engine.NewInvalid("meta.k8s.io", kind, "", meta.FieldErrors(errs))
	}
	opts.FieldManager = cmp.Or(manager, userAgentManager(r.UserAgent()))
	opts.Force = force != nil && *force
	return nil
}

// userAgentManager is kube-apiserver's prefixFromUserAgent: the User-Agent
// up to its first "/", printable characters only, at most 128 bytes.
func userAgentManager(ua string) string {
	name, _, _ := strings.Cut(ua, "/")
	var buf bytes.Buffer
	for _, r := range name {
		if !unicode.IsPrint(r) {
			continue
		}
		if buf.Len() >= metav1validation.FieldManagerMaxLength {
			break
		}
		buf.WriteRune(r)
	}
	return buf.String()
}
