package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authz"
)

// kube's impersonation headers (authenticationv1.Impersonate*Header).
const (
	impersonateUser        = "Impersonate-User"
	impersonateGroup       = "Impersonate-Group"
	impersonateUID         = "Impersonate-Uid"
	impersonateExtraPrefix = "Impersonate-Extra-"
)

// authenticationGroup is the API group of the userextras and uids that
// are impersonated, authentication.k8s.io/v1.
const authenticationGroup = "authentication.k8s.io"

// impersonate serves a request that asks to act as someone else as that
// someone, as kube's impersonation filter does: the user asking must be
// allowed the impersonate verb on each thing asked for (users or
// serviceaccounts, groups, userextras/{key}, uids), checked in kube's
// order; the first refused is answered 403, and groups, a UID or extras
// without a user 400. It stands after authentication and audit (the
// event records both identities: user and impersonatedUser) and before
// authorization, which then decides for the impersonated user. The
// headers are removed once used.
func (s *Server) impersonate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !asksImpersonation(r.Header) {
			next.ServeHTTP(w, r)
			return
		}
		refs := impersonationRequests(r.Header)
		if r.Header.Get(impersonateUser) == "" {
			s.writeError(w, r, engine.Errorf(engine.CodeBadRequest, "requested %v without impersonating a user", refs))
			return
		}
		u, err := s.impersonated(r, refs)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if ev, ok := r.Context().Value(auditEventKey{}).(*audit.Event); ok {
			ev.ImpersonatedUser = &audit.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
		}
		dropImpersonationHeaders(r.Header)
		next.ServeHTTP(w, r.WithContext(engine.WithUser(r.Context(), u)))
	})
}

// impersonated authorizes each of refs for the request's user and builds
// the user they make up. Errors: Forbidden for the first one refused.
func (s *Server) impersonated(r *http.Request, refs []objectReference) (*engine.User, error) {
	requestor := requestUser(r)
	groupsGiven := len(r.Header[impersonateGroup]) > 0
	u := &engine.User{Groups: []string{}}
	for _, ref := range refs {
		a := ref.attributes(requestor)
		d, reason, err := s.authorizer().Authorize(r.Context(), a)
		if err != nil || d != authz.DecisionAllow {
			return nil, authz.Forbidden(a, reason)
		}
		ref.apply(u, groupsGiven)
	}
	u.Groups = withAuthenticationGroup(u.Name, u.Groups)
	return u, nil
}

// attributes are what the user asking needs to impersonate ref.
func (ref objectReference) attributes(requestor *engine.User) authz.Attributes {
	a := authz.Attributes{User: requestor, Verb: "impersonate", ResourceRequest: true, Namespace: ref.Namespace, Name: ref.Name}
	switch ref.Kind {
	case "ServiceAccount":
		a.Resource = "serviceaccounts"
	case "User":
		a.Resource = "users"
	case "Group":
		a.Resource = "groups"
	case "UserExtra":
		a.APIGroup, a.APIVersion, a.Resource, a.Subresource = authenticationGroup, "v1", "userextras", ref.FieldPath
	case "UID":
		a.APIGroup, a.APIVersion, a.Resource = authenticationGroup, "v1", "uids"
	}
	return a
}

// apply adds what ref asks for to u; a service account's groups are
// kube's fixed ones unless groups are given.
func (ref objectReference) apply(u *engine.User, groupsGiven bool) {
	switch ref.Kind {
	case "ServiceAccount":
		u.Name = "system:serviceaccount:" + ref.Namespace + ":" + ref.Name
		if !groupsGiven {
			u.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ref.Namespace}
		}
	case "User":
		u.Name = ref.Name
	case "Group":
		u.Groups = append(u.Groups, ref.Name)
	case "UserExtra":
		if u.Extra == nil {
			u.Extra = map[string][]string{}
		}
		u.Extra[ref.FieldPath] = append(u.Extra[ref.FieldPath], ref.Name)
	case "UID":
		u.UID = ref.Name
	}
}

// withAuthenticationGroup adds system:authenticated to the groups of an
// impersonated user, unless system:authenticated or
// system:unauthenticated is among them, and system:unauthenticated to
// those of system:anonymous, as kube does.
func withAuthenticationGroup(name string, groups []string) []string {
	if name == engine.UserAnonymous {
		if slices.Contains(groups, engine.GroupUnauthenticated) {
			return groups
		}
		return append(groups, engine.GroupUnauthenticated)
	}
	if slices.Contains(groups, engine.GroupAuthenticated) || slices.Contains(groups, engine.GroupUnauthenticated) {
		return groups
	}
	return append(groups, engine.GroupAuthenticated)
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

// dropImpersonationHeaders removes the impersonation headers, as kube
// does once it has switched users.
func dropImpersonationHeaders(h http.Header) {
	h.Del(impersonateUser)
	h.Del(impersonateGroup)
	h.Del(impersonateUID)
	for name := range h {
		if strings.HasPrefix(name, impersonateExtraPrefix) {
			h.Del(name)
		}
	}
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

// objectReference is one thing a request asks to impersonate. It prints
// as kube's v1.ObjectReference does with %v, so that the 400 reads as
// kube's: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath}.
type objectReference struct {
	Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath string
}

// impersonationRequests lists what the headers ask for, in kube's order:
// the user (a ServiceAccount when its name is one's), the groups, the
// extras (keys lowercased and unescaped), the UID.
func impersonationRequests(h http.Header) []objectReference {
	var refs []objectReference
	if name := h.Get(impersonateUser); name != "" {
		ref := objectReference{Kind: "User", Name: name}
		if ns, sa, ok := serviceAccount(name); ok {
			ref = objectReference{Kind: "ServiceAccount", Namespace: ns, Name: sa}
		}
		refs = append(refs, ref)
	}
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
