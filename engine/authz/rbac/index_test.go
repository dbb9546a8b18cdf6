package rbac

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// TestMain stops the throw-away PostgreSQL pgtest started once the tests end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// TestBindingReadsARoleTheIndexHasNotSeen: a role stored a moment ago,
// which the watch has not brought to the index yet (here it never runs),
// is read from the store when a binding names it, as kube-apiserver reads
// it from storage; only a role the store lacks is "not found".
func TestBindingReadsARoleTheIndexHasNotSeen(t *testing.T) {
	ctx := context.Background()
	kit := servicetest.Open(t, "x")
	service, snap := kit.Service, kit.Snapshot
	res, ver, _ := snap.Lookup(Group, "v1", "roles")
	if _, err := service.Create(ctx, resource.Target{Resource: res, Version: ver, Namespace: "x"},
		[]byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"reader"},`+
			`"rules":[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get"]}]}`), resource.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	x := New(service, kit, slog.New(slog.DiscardHandler))
	bob := engine.WithUser(ctx, &engine.User{Name: "bob"})
	tests := []struct {
		role, want string
	}{
		{"reader", `is attempting to grant RBAC permissions not currently held:
{APIGroups:["shop.example.com"], Resources:["widgets"], Verbs:["get"]}`},
		{"ghost", `role.rbac.authorization.k8s.io "ghost" not found`},
	}
	for _, tt := range tests {
		err := x.CheckBinding(bob, "rolebindings", "x", "b", rbacv1.RoleRef{APIGroup: Group, Kind: "Role", Name: tt.role})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("binding %s: %v, want %q", tt.role, err, tt.want)
		}
	}
}
