package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// impersonators allows everything but impersonation, which it allows
// only for the keys it holds: "user resource[/subresource] [namespace/]name".
type impersonators map[string]bool

func (p impersonators) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	if a.Verb != "impersonate" {
		return authz.DecisionAllow, "", nil
	}
	res, name := a.Resource, a.Name
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Namespace != "" {
		name = a.Namespace + "/" + name
	}
	if p[a.User.Name+" "+res+" "+name] {
		return authz.DecisionAllow, "", nil
	}
	return authz.DecisionNoOpinion, "", nil
}

// Impersonation as kube's filter does it: each thing asked for is
// authorized with the impersonate verb (users or serviceaccounts, groups,
// userextras/{key}, uids), the request is then served as the user they
// make up, and the audit event records both identities.
func TestImpersonation(t *testing.T) {
	tokens, err := authn.ParseTokens(strings.NewReader("carol-token,carol,3,team\n"))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := audit.ParsePolicy([]byte(refusalPolicy))
	if err != nil {
		t.Fatal(err)
	}
	events := &syncBuffer{}
	allowed := impersonators{"carol users bob": true, "carol groups devs": true, "carol serviceaccounts team/robot": true,
		"carol userextras/scopes read": true, "carol uids 42": true, "carol users system:anonymous": true}
	s := newTestServerOptions(t, httpapi.Options{Authenticator: authn.Union{tokens}, Authorizer: allowed, Auditor: audit.NewLog(policy, events)})
	tests := []struct {
		name   string
		header []string
		code   int
		want   string // status.userInfo, or the refusal's message
	}{
		{"user", []string{"Impersonate-User", "bob"}, 201, `{"username":"bob","groups":["system:authenticated"]}`},
		{"user and group", []string{"Impersonate-User", "bob", "Impersonate-Group", "devs"}, 201,
			`{"username":"bob","groups":["devs","system:authenticated"]}`},
		{"service account", []string{"Impersonate-User", "system:serviceaccount:team:robot"}, 201,
			`{"username":"system:serviceaccount:team:robot","groups":["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"]}`},
		{"service account with groups", []string{"Impersonate-User", "system:serviceaccount:team:robot", "Impersonate-Group", "devs"}, 201,
			`{"username":"system:serviceaccount:team:robot","groups":["devs","system:authenticated"]}`},
		{"extra and uid", []string{"Impersonate-User", "bob", "Impersonate-Extra-Scopes", "read", "Impersonate-Uid", "42"}, 201,
			`{"username":"bob","uid":"42","groups":["system:authenticated"],"extra":{"scopes":["read"]}}`},
		{"anonymous", []string{"Impersonate-User", "system:anonymous"}, 201, `{"username":"system:anonymous","groups":["system:unauthenticated"]}`},
		{"user refused", []string{"Impersonate-User", "dave"}, 403,
			`users "dave" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{"group refused", []string{"Impersonate-User", "bob", "Impersonate-Group", "system:masters"}, 403,
			`groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{"service account refused", []string{"Impersonate-User", "system:serviceaccount:other:robot"}, 403,
			`serviceaccounts "robot" is forbidden: User "carol" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "other"`},
		{"extra refused", []string{"Impersonate-User", "bob", "Impersonate-Extra-Scopes", "write"}, 403,
			`userextras.authentication.k8s.io "write" is forbidden: User "carol" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{"uid refused", []string{"Impersonate-User", "bob", "Impersonate-Uid", "7"}, 403,
			`uids.authentication.k8s.io "7" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`},
		{"group without user", []string{"Impersonate-Group", "devs"}, 400, "requested [{Group  devs    }] without impersonating a user"},
		{"uid without user", []string{"Impersonate-Uid", "7"}, 400, "requested [{UID  7  authentication.k8s.io/v1  }] without impersonating a user"},
		{"extra without user", []string{"Impersonate-Extra-Scopes", "x"}, 400,
			"requested [{UserExtra  x  authentication.k8s.io/v1  scopes}] without impersonating a user"},
		// Empty headers ask for nothing, as in kube.
		{"empty headers", []string{"Impersonate-User", "", "Impersonate-Uid", ""}, 201,
			`{"username":"carol","uid":"3","groups":["team","system:authenticated"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
				`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, append(tt.header, "Authorization", "Bearer carol-token")...)
			if r.code != tt.code {
				t.Fatalf("code %d, want %d: %s", r.code, tt.code, r.body)
			}
			if tt.code != http.StatusCreated {
				if got := r.get("message").String(); got != tt.want {
					t.Errorf("message %q, want %q", got, tt.want)
				}
				return
			}
			jsoneq.Assert(t, r.get("status.userInfo").Raw, tt.want)
		})
	}

	// The event names who asked and whom they acted as.
	r := s.do(http.MethodGet, "/api/v1/namespaces", "", "", "Authorization", "Bearer carol-token", "Impersonate-User", "bob")
	ev := auditEvent(t, events, r.header.Get("Audit-Id"), "ResponseComplete")
	jsoneq.Assert(t, ev.Get("user").Raw, `{"username":"carol","uid":"3","groups":["team","system:authenticated"]}`)
	jsoneq.Assert(t, ev.Get("impersonatedUser").Raw, `{"username":"bob","groups":["system:authenticated"]}`)
}
