package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
)

// kube's impersonation headers (authenticationv1.Impersonate*Header).
const (
	impersonateUser        = "Impersonate-User"
	impersonateGroup       = "Impersonate-Group"
	impersonateUID         = "Impersonate-Uid"
	impersonateExtraPrefix = "Impersonate-Extra-"
)

// refuseImpersonation refuses every request that asks to act as someone
// else. dynapi does not implement impersonation yet, and serving such a
// request as its sender would be worse than refusing it: `kubectl
// --as=bob auth can-i` would answer for the admin who asked, and `kubectl
// --as=bob delete` would act as the admin. It stands where kube's
// impersonation filter stands, after authentication (the refusal names
// the user asking) and audit (the refusal is recorded), and answers as
// kube does to a user who may not impersonate, which today is everyone:
// 403 `users "bob" is forbidden: User "admin" cannot impersonate resource
// "users" in API group "" at the cluster scope`; groups, a UID or extras
// without a user are kube's 400.
func (s *Server) refuseImpersonation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !asksImpersonation(r.Header) {
			next.ServeHTTP(w, r)
			return
		}
		s.writeError(w, r, impersonationError(r))
	})
}

// asksImpersonation reports whether the headers ask to impersonate
// anything, as kube's buildImpersonationRequests reads them: an empty
// Impersonate-User or Impersonate-Uid asks for nothing.
func asksImpersonation(h http.Header) bool {
	if h.Get(impersonateUser) != "" || h.Get(impersonateUID) != "" || len(h[impersonateGroup]) > 0 {
		return true
	}
	for name := range h {
		if strings.HasPrefix(name, impersonateExtraPrefix) {
			return true
		}
	}
	return false
}

// impersonationError is kube's answer to the first thing a request asks
// to impersonate, its user: kube checks the user before the groups, the
// extras and the UID, and refuses those without a user with 400.
func impersonationError(r *http.Request) error {
	name := r.Header.Get(impersonateUser)
	if name == "" {
		return engine.Errorf(engine.CodeBadRequest, "requested %v without impersonating a user", impersonationRequests(r.Header))
	}
	u, ok := engine.UserFrom(r.Context())
	if !ok {
		u = anonymousUser // no authentication configured
	}
	a := authz.Attributes{User: u, Verb: "impersonate", ResourceRequest: true, Resource: "users", Name: name}
	if ns, sa, ok := serviceAccount(name); ok {
		a.Resource, a.Namespace, a.Name = "serviceaccounts", ns, sa
	}
	return authz.Forbidden(a, "")
}

// serviceAccount splits system:serviceaccount:{namespace}:{name}, as
// kube's serviceaccount.SplitUsername.
func serviceAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// objectReference prints as kube's v1.ObjectReference does with %v, so
// that the 400 reads as kube's: {Kind Namespace Name UID APIVersion
// ResourceVersion FieldPath}.
type objectReference struct {
	Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath string
}

// impersonationRequests lists what the headers ask for, in kube's order
// (groups, extras, UID; the user is never there when this is called).
func impersonationRequests(h http.Header) []objectReference {
	var refs []objectReference
	for _, g := range h[impersonateGroup] {
		refs = append(refs, objectReference{Kind: "Group", Name: g})
	}
	for name, values := range h {
		if key, ok := strings.CutPrefix(name, impersonateExtraPrefix); ok {
			key = strings.ToLower(key)
			if unescaped, err := url.PathUnescape(key); err == nil {
				key = unescaped
			}
			for _, v := range values {
				refs = append(refs, objectReference{Kind: "UserExtra", APIVersion: "authentication.k8s.io/v1", Name: v, FieldPath: key})
			}
		}
	}
	if uid := h.Get(impersonateUID); uid != "" {
		refs = append(refs, objectReference{Kind: "UID", Name: uid, APIVersion: "authentication.k8s.io/v1"})
	}
	return refs
}
