package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/tidwall/gjson"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/resource"
)

// ServiceAccountTokens issues service-account tokens, authenticates them
// and publishes the keys that verify them (*satoken.Tokens).
type ServiceAccountTokens interface {
	authn.Authenticator
	// Issue signs a token for the ServiceAccount namespace/name of uid;
	// credentialID is what requests made with it carry in their extra.
	Issue(namespace, name, uid string, audiences []string, ttl time.Duration) (token string, expires time.Time, credentialID string, err error)
	// Audiences are the API's, a TokenRequest's default.
	Audiences() []string
	// MaxExpiration bounds a token's life (0: kube's bound only).
	MaxExpiration() time.Duration
	// Discovery returns the OIDC discovery documents; ok is false when
	// the issuer has none (not an https URL).
	Discovery(jwksURI string) (config, keys []byte, ok bool, err error)
}

// issuedCredentialIDAnnotation is the audit annotation of a TokenRequest
// naming the credential id of the token issued, which the audit events of
// the requests made with it carry in user.extra: kube's, to trace a token
// back to its issue.
const issuedCredentialIDAnnotation = "authentication.kubernetes.io/issued-credential-id"

// kube's bounds and default of a TokenRequest's expirationSeconds.
const (
	minTokenSeconds     = 10 * 60
	maxTokenSeconds     = 1 << 32
	defaultTokenSeconds = 60 * 60
)

// The paths of kube's service-account issuer discovery.
const (
	openIDConfigPath = "/.well-known/openid-configuration"
	jwksPath         = "/openid/v1/jwks"
)

func (s *Server) serviceAccountRoutes() {
	s.router.Post("/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", s.handleTokenRequest)
	s.router.Post(reviewsAuthn+"tokenreviews", s.handleTokenReview)
	s.router.Get(openIDConfigPath, s.handleDiscovery(true))
	s.router.Get(jwksPath, s.handleDiscovery(false))
}

// handleTokenRequest is kube's serviceaccounts/token subresource
// (kubectl create token): a token for the ServiceAccount of the path,
// bound to its uid.
func (s *Server) handleTokenRequest(w http.ResponseWriter, r *http.Request) {
	if s.tokens == nil {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	var req authenticationv1.TokenRequest
	if err := readReview(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	namespace, name := chi.URLParam(r, "namespace"), chi.URLParam(r, "name")
	uid, err := s.serviceAccountUID(r, namespace, name)
	if err == nil {
		err = s.prepareTokenRequest(&req, namespace, name, uid)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ttl := time.Duration(*req.Spec.ExpirationSeconds) * time.Second
	token, exp, credentialID, err := s.tokens.Issue(namespace, name, uid, req.Spec.Audiences, ttl)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	annotateAudit(r, issuedCredentialIDAnnotation, credentialID)
	req.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	req.APIVersion, req.Kind = "authentication.k8s.io/v1", "TokenRequest"
	writeJSON(w, http.StatusCreated, req)
}

// serviceAccountUID reads the uid of a stored ServiceAccount. Errors:
// NotFound.
func (s *Server) serviceAccountUID(r *http.Request, namespace, name string) (string, error) {
	res, ver, ok := s.snapshots.Load().Lookup("", "v1", "serviceaccounts")
	if !ok {
		return "", errNotFoundPath
	}
	body, err := s.service.Get(r.Context(), resource.Target{Resource: res, Version: ver, Namespace: namespace}, name)
	if err != nil {
		return "", err
	}
	return gjson.GetBytes(body, "metadata.uid").String(), nil
}

// prepareTokenRequest checks and defaults a TokenRequest as kube's
// TokenREST does. Errors: Invalid for a name or namespace other than the
// path's, or expirationSeconds out of kube's bounds; Conflict for another
// uid; BadRequest for a bound object, which dynapi cannot bind to.
func (s *Server) prepareTokenRequest(req *authenticationv1.TokenRequest, namespace, name, uid string) error {
	const group, kind = "authentication.k8s.io", "TokenRequest"
	switch {
	case req.Name != "" && req.Name != name:
		return engine.NewInvalid(group, kind, name, []engine.FieldError{tokenRequestInvalid("metadata.name", strconv.Quote(req.Name), "must match the service account name if specified")})
	case req.Namespace != "" && req.Namespace != namespace:
		return engine.NewInvalid(group, kind, name, []engine.FieldError{tokenRequestInvalid("metadata.namespace", strconv.Quote(req.Namespace), "must match the service account namespace if specified")})
	case req.UID != "" && string(req.UID) != uid:
		return &engine.Error{Code: engine.CodeConflict, Group: group, Kind: kind, Name: name,
			Message: fmt.Sprintf("Operation cannot be fulfilled on %s.%s %q: the UID in the token request (%s) does not match the UID of the service account (%s)", kind, group, name, req.UID, uid)}
	case req.Spec.BoundObjectRef != nil:
		return engine.Errorf(engine.CodeBadRequest, "cannot bind token for serviceaccount %q to object of type %s", name, req.Spec.BoundObjectRef.Kind)
	}
	req.Name, req.Namespace, req.UID, req.CreationTimestamp = name, namespace, types.UID(uid), metav1.Now()
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = s.tokens.Audiences()
	}
	if req.Spec.ExpirationSeconds == nil {
		seconds := int64(defaultTokenSeconds)
		req.Spec.ExpirationSeconds = &seconds
	}
	switch seconds := *req.Spec.ExpirationSeconds; {
	case seconds < minTokenSeconds:
		return engine.NewInvalid(group, kind, "", []engine.FieldError{tokenRequestInvalid("spec.expirationSeconds", strconv.FormatInt(seconds, 10), "may not specify a duration less than 10 minutes")})
	case seconds > maxTokenSeconds:
		return engine.NewInvalid(group, kind, "", []engine.FieldError{tokenRequestInvalid("spec.expirationSeconds", strconv.FormatInt(seconds, 10), "may not specify a duration larger than 2^32 seconds")})
	}
	if bound := int64(s.tokens.MaxExpiration() / time.Second); bound > 0 && *req.Spec.ExpirationSeconds > bound {
		*req.Spec.ExpirationSeconds = bound
	}
	return nil
}

// tokenRequestInvalid is field.Invalid in kube's words.
func tokenRequestInvalid(path, value, msg string) engine.FieldError {
	return engine.FieldError{Type: engine.CauseInvalid, Path: path, Message: "Invalid value: " + value + ": " + msg}
}

// handleTokenReview is kube's TokenReview: whether a token authenticates,
// through every authenticator, for the review's audiences (the API's
// when none).
func (s *Server) handleTokenReview(w http.ResponseWriter, r *http.Request) {
	var review authenticationv1.TokenReview
	if err := readReview(r, &review); err != nil {
		s.writeError(w, r, err)
		return
	}
	if review.Spec.Token == "" {
		s.writeError(w, r, engine.Errorf(engine.CodeBadRequest, "token is required for TokenReview in authentication"))
		return
	}
	review.Status = s.reviewToken(r, review.Spec)
	review.APIVersion, review.Kind = "authentication.k8s.io/v1", "TokenReview"
	writeJSON(w, http.StatusCreated, review)
}

// reviewToken authenticates spec's token as a request carrying it would be.
func (s *Server) reviewToken(r *http.Request, spec authenticationv1.TokenReviewSpec) authenticationv1.TokenReviewStatus {
	audiences, authenticator := spec.Audiences, s.authn
	if s.tokens != nil {
		if len(audiences) == 0 {
			audiences = s.tokens.Audiences()
		}
		if authenticator == nil { // a server without authentication still reviews its tokens
			authenticator = authn.Union{s.tokens}
		}
	}
	if authenticator == nil {
		return authenticationv1.TokenReviewStatus{Error: "no authenticator is configured"}
	}
	probe, err := http.NewRequestWithContext(authn.WithAudiences(r.Context(), spec.Audiences), http.MethodGet, "/", nil)
	if err != nil {
		return authenticationv1.TokenReviewStatus{Error: err.Error()}
	}
	probe.Header.Set("Authorization", "Bearer "+spec.Token)
	u, ok, err := authenticator.Authenticate(probe)
	switch {
	case err != nil:
		return authenticationv1.TokenReviewStatus{Error: err.Error()}
	case !ok:
		return authenticationv1.TokenReviewStatus{}
	}
	info := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	for k, v := range u.Extra {
		if info.Extra == nil {
			info.Extra = map[string]authenticationv1.ExtraValue{}
		}
		info.Extra[k] = v
	}
	return authenticationv1.TokenReviewStatus{Authenticated: true, User: info, Audiences: audiences}
}

// handleDiscovery serves the issuer's OpenID configuration (config) or
// its key set, as kube does: 404 when the issuer has none.
func (s *Server) handleDiscovery(config bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.tokens == nil {
			s.writeError(w, r, errNotFoundPath)
			return
		}
		doc, keys, ok, err := s.tokens.Discovery(s.jwksURI)
		switch {
		case err != nil:
			s.writeError(w, r, err)
			return
		case !ok:
			s.writeError(w, r, errNotFoundPath)
			return
		}
		contentType := "application/json"
		if !config {
			doc, contentType = keys, "application/jwk-set+json"
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	}
}
