package admissionpolicy

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// collectParams finds the params a binding gives its policy for a
// request in namespace, as kube's generic.CollectParams does (same
// cases, same texts): one nil param when the policy takes none or the
// binding names none; the named object, or those selected; none found
// is an error only under parameterNotFoundAction Deny.
func (r *request) collectParams(kind *v1.ParamKind, ref *v1.ParamRef, namespace string) ([]runtime.Object, error) {
	if kind == nil || ref == nil {
		return []runtime.Object{nil}, nil
	}
	namespaced, err := r.env.ParamScope(kind)
	if err != nil {
		return nil, fmt.Errorf("paramKind kind `%v` not known", kind.String())
	}
	paramsNamespace := ""
	if namespaced {
		paramsNamespace = namespace
		if ref.Namespace != "" {
			paramsNamespace = ref.Namespace
		} else if paramsNamespace == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	}
	params, err := r.findParams(kind, ref, namespaced, paramsNamespace)
	if err != nil {
		return nil, err
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == v1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}

func (r *request) findParams(kind *v1.ParamKind, ref *v1.ParamRef, namespaced bool, namespace string) ([]runtime.Object, error) {
	switch {
	case ref.Namespace != "" && !namespaced:
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		p, err := r.env.Param(r.ctx, kind, namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []runtime.Object{p}, nil
	case ref.Selector != nil:
		selector, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		return r.env.Params(r.ctx, kind, namespace, selector)
	}
	return nil, errors.New("one of name or selector must be provided")
}
