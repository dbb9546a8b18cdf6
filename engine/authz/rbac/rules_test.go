package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine/authz"
)

func TestRuleAllows(t *testing.T) {
	t.Parallel()
	rule := func(verbs, groups, resources, names, urls []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names, NonResourceURLs: urls}
	}
	s := func(v ...string) []string { return v }
	res := func(verb, group, resource, sub, name string) authz.Attributes {
		return authz.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
	}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		a    authz.Attributes
		want bool
	}{
		{"exact", rule(s("get"), s("a.io"), s("ws"), nil, nil), res("get", "a.io", "ws", "", "x"), true},
		{"verb", rule(s("get"), s("a.io"), s("ws"), nil, nil), res("list", "a.io", "ws", "", ""), false},
		{"group", rule(s("get"), s("a.io"), s("ws"), nil, nil), res("get", "b.io", "ws", "", "x"), false},
		{"wildcards", rule(s("*"), s("*"), s("*"), nil, nil), res("delete", "b.io", "zs", "status", "x"), true},
		{"subresource needs its own rule", rule(s("*"), s("a.io"), s("ws"), nil, nil), res("update", "a.io", "ws", "status", "x"), false},
		{"resource/subresource", rule(s("*"), s("a.io"), s("ws/status"), nil, nil), res("update", "a.io", "ws", "status", "x"), true},
		{"*/subresource", rule(s("*"), s("a.io"), s("*/status"), nil, nil), res("update", "a.io", "ws", "status", "x"), true},
		{"*/subresource, main", rule(s("*"), s("a.io"), s("*/status"), nil, nil), res("update", "a.io", "ws", "", "x"), false},
		{"resourceNames", rule(s("get"), s(""), s("cms"), s("a"), nil), res("get", "", "cms", "", "a"), true},
		{"resourceNames, other", rule(s("get"), s(""), s("cms"), s("a"), nil), res("get", "", "cms", "", "b"), false},
		{"url", rule(s("get"), nil, nil, nil, s("/metrics")), authz.Attributes{Verb: "get", Path: "/metrics"}, true},
		{"url prefix", rule(s("get"), nil, nil, nil, s("/apis/*")), authz.Attributes{Verb: "get", Path: "/apis/a.io/v1"}, true},
		{"url other", rule(s("get"), nil, nil, nil, s("/apis/*")), authz.Attributes{Verb: "get", Path: "/api"}, false},
		{"url rule, resource request", rule(s("get"), nil, nil, nil, s("*")), res("get", "", "cms", "", "a"), false},
	}
	for _, tt := range tests {
		if got := ruleAllows(&tt.a, &tt.rule); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestUncovered(t *testing.T) {
	t.Parallel()
	owner := []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{"a.io"}, Resources: []string{"ws"}},
		{Verbs: []string{"update"}, APIGroups: []string{"a.io"}, Resources: []string{"*/status"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"cms"}, ResourceNames: []string{"one"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/logs/*"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"*"}},
	}
	tests := []struct {
		name    string
		req     rbacv1.PolicyRule
		missing int
	}{
		{"subset", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"a.io"}, Resources: []string{"ws"}}, 0},
		{"more verbs", rbacv1.PolicyRule{Verbs: []string{"get", "delete"}, APIGroups: []string{"a.io"}, Resources: []string{"ws"}}, 1},
		{"wildcard asked", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"a.io"}, Resources: []string{"ws"}}, 1},
		{"subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"a.io"}, Resources: []string{"ws/status"}}, 0},
		{"named", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"cms"}, ResourceNames: []string{"one"}}, 0},
		{"all names", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"cms"}}, 1},
		{"url under prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/logs/a"}}, 0},
		{"url prefix itself", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/logs/a/*"}}, 0},
		{"url elsewhere", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/*"}}, 1},
		// resourceNames have no wildcard: "*" is a name, as authorization reads it.
		{"a name under the name *", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"s1"}}, 1},
		{"the name *", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"*"}}, 0},
		{"all names under the name *", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}, 1},
		{"a url rule is not a resource rule", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"a.io"}, Resources: []string{"ws"}, NonResourceURLs: []string{"/logs/a"}}, 0},
	}
	for _, tt := range tests {
		if got := Uncovered(owner, []rbacv1.PolicyRule{tt.req}); len(got) != tt.missing {
			t.Errorf("%s: uncovered %v, want %d", tt.name, got, tt.missing)
		}
	}
}
