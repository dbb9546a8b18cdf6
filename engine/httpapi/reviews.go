package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
)

// The reviews are kube-apiserver's virtual, create-only resources that
// answer who the caller is (kubectl auth whoami) and what a user may do
// (kubectl auth can-i): nothing is stored.
const (
	reviewsAuthn = "/apis/authentication.k8s.io/v1/"
	reviewsAuthz = "/apis/authorization.k8s.io/v1/"
)

func (s *Server) reviewRoutes() {
	s.router.Post(reviewsAuthn+"selfsubjectreviews", s.acceptsReview(s.handleSelfSubjectReview))
	s.router.Post(reviewsAuthz+"selfsubjectaccessreviews", s.acceptsReview(s.handleSelfSubjectAccessReview))
	s.router.Post(reviewsAuthz+"selfsubjectrulesreviews", s.acceptsReview(s.handleSelfSubjectRulesReview))
	s.router.Post(reviewsAuthz+"subjectaccessreviews", s.acceptsReview(s.handleSubjectAccessReview))
	s.router.Post(reviewsAuthz+"namespaces/{namespace}/localsubjectaccessreviews", s.acceptsReview(s.handleLocalSubjectAccessReview))
}

// acceptsReview answers 406 to a review whose Accept allows only what a
// review cannot be (a Table, a PartialObjectMetadata: it has no
// metadata), before reading its body, as kube-apiserver negotiates first.
func (s *Server) acceptsReview(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := negotiate(r, forReview, engine.GroupVersionKind{}); err != nil {
			s.writeError(w, r, err)
			return
		}
		next(w, r)
	}
}

// requestUser is the request's user; a server without authentication
// serves everyone as system:anonymous.
func requestUser(r *http.Request) *engine.User {
	if u, ok := engine.UserFrom(r.Context()); ok {
		return u
	}
	return anonymousUser
}

// authorizer is the server's authorizer, AlwaysAllow when none is set.
func (s *Server) authorizer() authz.Authorizer {
	if s.authz == nil {
		return authz.AlwaysAllow{}
	}
	return s.authz
}

func (s *Server) handleSelfSubjectReview(w http.ResponseWriter, r *http.Request) {
	var review authenticationv1.SelfSubjectReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	u := requestUser(r)
	review.Status.UserInfo = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	for k, v := range u.Extra {
		if review.Status.UserInfo.Extra == nil {
			review.Status.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
		}
		review.Status.UserInfo.Extra[k] = v
	}
	review.APIVersion, review.Kind = "authentication.k8s.io/v1", "SelfSubjectReview"
	writeJSON(w, http.StatusCreated, review)
}

func (s *Server) handleSelfSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	var review authorizationv1.SelfSubjectAccessReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	a, err := reviewAttributes(review.Spec.ResourceAttributes, review.Spec.NonResourceAttributes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	a.User = requestUser(r)
	review.Status = s.review(r, a)
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SelfSubjectAccessReview"
	writeJSON(w, http.StatusCreated, review)
}

func (s *Server) handleSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	var review authorizationv1.SubjectAccessReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	a, err := subjectAttributes("SubjectAccessReview", review.Spec)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	review.Status = s.review(r, a)
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
	writeJSON(w, http.StatusCreated, review)
}

// handleLocalSubjectAccessReview answers a SubjectAccessReview limited to
// the namespace of its URL, which kube lets a namespace's admin create.
func (s *Server) handleLocalSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	var review authorizationv1.LocalSubjectAccessReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	namespace := chi.URLParam(r, "namespace")
	if review.Namespace == "" {
		review.Namespace = namespace
	}
	a, err := subjectAttributes("LocalSubjectAccessReview", review.Spec)
	switch {
	case review.Namespace != namespace:
		err = engine.Errorf(engine.CodeBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
	case err == nil:
		err = localReviewInvalid(&review)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	review.Status = s.review(r, a)
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "LocalSubjectAccessReview"
	writeJSON(w, http.StatusCreated, review)
}

// localReviewInvalid is kube's ValidateLocalSubjectAccessReview beyond
// the spec: the namespace asked about is the review's own, and only
// resources are asked about. Errors: Invalid.
func localReviewInvalid(review *authorizationv1.LocalSubjectAccessReview) error {
	const kind = "LocalSubjectAccessReview"
	switch spec := review.Spec; {
	case spec.ResourceAttributes != nil && spec.ResourceAttributes.Namespace != review.Namespace:
		return reviewInvalid(kind, "spec.resourceAttributes.namespace",
			fmt.Sprintf("%q: must match metadata.namespace", spec.ResourceAttributes.Namespace))
	case spec.NonResourceAttributes != nil:
		return reviewInvalid(kind, "spec.nonResourceAttributes", "disallowed on this kind of request")
	}
	return nil
}

// subjectAttributes are the attributes the spec of a review of kind (a
// SubjectAccessReview or LocalSubjectAccessReview) asks about. Errors:
// Invalid without a user or group, or without exactly one of
// resourceAttributes and nonResourceAttributes.
func subjectAttributes(kind string, spec authorizationv1.SubjectAccessReviewSpec) (authz.Attributes, error) {
	a, err := reviewAttributes(spec.ResourceAttributes, spec.NonResourceAttributes)
	if err != nil {
		return a, err
	}
	if spec.User == "" && len(spec.Groups) == 0 {
		return a, reviewInvalid(kind, "spec.user", "at least one of user or group must be specified")
	}
	a.User = &engine.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	for k, v := range spec.Extra {
		if a.User.Extra == nil {
			a.User.Extra = map[string][]string{}
		}
		a.User.Extra[k] = v
	}
	return a, nil
}

func (s *Server) handleSelfSubjectRulesReview(w http.ResponseWriter, r *http.Request) {
	var review authorizationv1.SelfSubjectRulesReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	resolver, ok := s.authorizer().(authz.RuleResolver)
	if !ok {
		review.Status.Incomplete = true
		review.Status.EvaluationError = "the authorizer cannot list rules"
	} else {
		res, nonRes, incomplete := resolver.RulesFor(requestUser(r), review.Spec.Namespace)
		review.Status.Incomplete = incomplete
		review.Status.ResourceRules = make([]authorizationv1.ResourceRule, 0, len(res))
		for _, rule := range res {
			review.Status.ResourceRules = append(review.Status.ResourceRules, authorizationv1.ResourceRule(rule))
		}
		review.Status.NonResourceRules = make([]authorizationv1.NonResourceRule, 0, len(nonRes))
		for _, rule := range nonRes {
			review.Status.NonResourceRules = append(review.Status.NonResourceRules, authorizationv1.NonResourceRule(rule))
		}
	}
	review.APIVersion, review.Kind = "authorization.k8s.io/v1", "SelfSubjectRulesReview"
	writeJSON(w, http.StatusCreated, review)
}

// review asks the authorizer about a.
func (s *Server) review(r *http.Request, a authz.Attributes) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := s.authorizer().Authorize(r.Context(), a)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: d == authz.DecisionAllow, Denied: d == authz.DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// reviewAttributes turns a review's spec into attributes. Errors: Invalid
// unless exactly one of the two is given.
func reviewAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) (authz.Attributes, error) {
	switch {
	case res != nil && nonRes == nil:
		return authz.Attributes{ResourceRequest: true, Verb: res.Verb, Namespace: res.Namespace, APIGroup: res.Group,
			APIVersion: res.Version, Resource: res.Resource, Subresource: res.Subresource, Name: res.Name}, nil
	case nonRes != nil && res == nil:
		return authz.Attributes{Verb: nonRes.Verb, Path: nonRes.Path}, nil
	}
	return authz.Attributes{}, reviewInvalid("SubjectAccessReview", "spec.resourceAttributes",
		"exactly one of nonResourceAttributes or resourceAttributes must be specified")
}

func reviewInvalid(kind, path, msg string) error {
	return engine.NewInvalid("authorization.k8s.io", kind, "", []engine.FieldError{{Type: engine.CauseInvalid, Path: path, Message: "Invalid value: " + msg}})
}

// readReview decodes a review body (JSON, YAML or kubectl's protobuf).
func readReview(r *http.Request, v any) error {
	body, _, err := readBody(r) // duplicate keys: json.Unmarshal keeps the last, as kube's decoder does
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return engine.Errorf(engine.CodeBadRequest, "invalid review: %v", err)
	}
	return nil
}
