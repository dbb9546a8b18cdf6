package crd

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/resource"
)

// widgetFile defines shop.example.com's Widget as a definition file.
var widgetFile = fstest.MapFS{"shop.example.com/widget.yaml": {Data: []byte(`
group: shop.example.com
kind: Widget
plural: widgets
shortNames: [wg]
scope: Namespaced
versions: [{name: v1, storage: true, schema: {type: object}}]
`)}}

// newController returns a Controller, with a Service without a Store, of widgetFile and
// the definitions objects, handed to its registry.
func newController(t *testing.T, objects map[string][]byte) *Controller {
	t.Helper()
	c := New(resource.New(nil), newDefinitions(t, widgetFile), slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	c.objects = objects
	c.hand()
	return c
}

func TestStatusOf(t *testing.T) {
	t.Parallel()
	gadgets := crdJSON("shop.example.com", "gadgets", "Gadget", "gd")
	clash := crdJSON("shop.example.com", "widgets", "Thing", "th")
	clashShort := crdJSON("shop.example.com", "doohickeys", "Doohickey", "wg")
	twin := crdJSON("shop.example.com", "gizmos", "Gadget") // gadgets' singular, kind and listKind
	broken, _ := sjson.SetBytes(crdJSON("shop.example.com", "broken", "Broken"), "spec.versions.0.storage", false)
	review := crdJSON("authorization.k8s.io", "selfsubjectaccessreviews", "Shadow")
	builtin := crdJSON("rbac.authorization.k8s.io", "roles", "Shadow")
	c := newController(t, map[string][]byte{
		"gadgets.shop.example.com": gadgets, "widgets.shop.example.com": clash,
		"doohickeys.shop.example.com": clashShort, "gizmos.shop.example.com": twin,
		"broken.shop.example.com": broken, "selfsubjectaccessreviews.authorization.k8s.io": review,
		"roles.rbac.authorization.k8s.io": builtin,
	})
	defs := c.defs
	c.Now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	tests := []struct {
		name        string
		obj         []byte
		names       string // NamesAccepted: status reason
		established string // Established: status reason
		message     string // in a message
		accepted    string // acceptedNames.plural
		stored      string // storedVersions
	}{
		{"served", gadgets, "True NoConflicts", "True InitialNamesAccepted", "no conflicts found", "gadgets", "v1"},
		{"plural of a definition file", clash, "False PluralConflict", "False NotAccepted",
			`"widgets" is already in use by widgets.shop.example.com (definition file shop.example.com/widget.yaml)`, "", "v1"},
		{"short name of a definition file", clashShort, "False ShortNamesConflict", "False NotAccepted", `"wg" is already in use`, "doohickeys", "v1"},
		{"kind of another definition", twin, "False SingularConflict", "False NotAccepted",
			`"Gadget" is already in use by CustomResourceDefinition gadgets.shop.example.com`, "gizmos", "v1"},
		{"plural of a review", review, "False PluralConflict", "False NotAccepted",
			`"selfsubjectaccessreviews" is already in use by selfsubjectaccessreviews.authorization.k8s.io (a review the server answers)`, "", "v1"},
		{"plural of a built-in kind", builtin, "False PluralConflict", "False NotAccepted",
			`"roles" is already in use by roles.rbac.authorization.k8s.io (definition file builtin:rbac.authorization.k8s.io/role.yaml)`, "", "v1"},
		{"refused for another reason", broken, "True NoConflicts", "False NotAccepted",
			"exactly one version must be the storage version", "broken", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, changed := c.statusOf(tt.obj, defs.Load(), defs.Problems())
			out := s.json()
			if !changed {
				t.Fatalf("statusOf = %s, unchanged", out)
			}
			if got := s.Conditions[0].Status + " " + s.Conditions[0].Reason; s.Conditions[0].Type != "NamesAccepted" || got != tt.names {
				t.Errorf("NamesAccepted = %+v, want %s", s.Conditions[0], tt.names)
			}
			if got := s.Conditions[1].Status + " " + s.Conditions[1].Reason; s.Conditions[1].Type != "Established" || got != tt.established {
				t.Errorf("Established = %+v, want %s", s.Conditions[1], tt.established)
			}
			if !strings.Contains(s.Conditions[0].Message+s.Conditions[1].Message, tt.message) {
				t.Errorf("messages lack %q: %s", tt.message, out)
			}
			if s.AcceptedNames.Plural != tt.accepted || strings.Join(s.StoredVersions, " ") != tt.stored ||
				s.Conditions[0].LastTransitionTime != "2025-01-02T03:04:05Z" {
				t.Errorf("status = %s", out)
			}
		})
	}
}

// A status is rewritten only when a condition changes, and a condition
// keeps its lastTransitionTime while its status stays.
func TestStatusOfKeepsTransitionTimes(t *testing.T) {
	t.Parallel()
	obj := crdJSON("shop.example.com", "gadgets", "Gadget")
	c := newController(t, map[string][]byte{"gadgets.shop.example.com": obj})
	defs := c.defs
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c.Now = func() time.Time { return now }
	first, _ := c.statusOf(obj, defs.Load(), defs.Problems())
	obj, _ = sjson.SetRawBytes(obj, "status", []byte(first.json()))
	now = now.Add(time.Hour)
	if again, changed := c.statusOf(obj, defs.Load(), defs.Problems()); changed {
		t.Fatalf("unchanged status rewritten:\n%s\n%s", first.json(), again.json())
	}
	defs.SetAPIDefinitions(nil) // no longer served
	s, changed := c.statusOf(obj, defs.Load(), defs.Problems())
	out := s.json()
	if !changed || !strings.Contains(out, `"type":"NamesAccepted","status":"True","lastTransitionTime":"2025-01-02T03:04:05Z"`) ||
		!strings.Contains(out, `"type":"Established","status":"False","lastTransitionTime":"2025-01-02T04:04:05Z"`) {
		t.Fatalf("status after unserving: %v %s", changed, out)
	}
}

// A served definition changed to names another resource holds serves on as
// it was, as in Kubernetes: Established stays, NamesAccepted says why, and
// acceptedNames are the names still served.
func TestStatusOfRefusedChange(t *testing.T) {
	t.Parallel()
	c := newController(t, map[string][]byte{"gadgets.shop.example.com": crdJSON("shop.example.com", "gadgets", "Gadget", "gd")})
	changed := crdJSON("shop.example.com", "gadgets", "Gadget", "wg")
	c.remember(changed)
	c.hand()
	s, _ := c.statusOf(changed, c.defs.Load(), c.defs.Problems())
	if s.Conditions[0].Reason != "ShortNamesConflict" || s.Conditions[1].Status != "True" ||
		strings.Join(s.AcceptedNames.ShortNames, ",") != "gd" {
		t.Fatalf("status = %s", s.json())
	}
}

func TestStoredVersions(t *testing.T) {
	t.Parallel()
	v2 := []byte(`{"spec":{"versions":[{"name":"v1","storage":false},{"name":"v2","storage":true}]}}`)
	tests := []struct {
		obj  []byte
		old  []string
		want string
	}{
		{v2, nil, "v2"},
		{v2, []string{"v1"}, "v1 v2"},
		{v2, []string{"v2", "v1"}, "v2 v1"},
		{[]byte(`{"spec":{"versions":[]}}`), []string{"v1"}, "v1"},
	}
	for _, tt := range tests {
		if got := strings.Join(storedVersions(tt.obj, tt.old), " "); got != tt.want {
			t.Errorf("storedVersions(%s, %v) = %s, want %s", tt.obj, tt.old, got, tt.want)
		}
	}
}

// A condition another controller owns (a storage version migration's
// StorageMigrating) is kept as it is: the status is not rewritten for it,
// and a rewrite for another reason keeps it.
func TestStatusOfKeepsOthersConditions(t *testing.T) {
	t.Parallel()
	obj := crdJSON("shop.example.com", "gadgets", "Gadget")
	c := newController(t, map[string][]byte{"gadgets.shop.example.com": obj})
	defs := c.defs
	first, _ := c.statusOf(obj, defs.Load(), defs.Problems())
	migrating := `{"type":"StorageMigrating","status":"False","lastTransitionTime":"2025-01-02T03:04:05Z",` +
		`"reason":"MigrationSucceeded","message":"The migration has succeeded","observedGeneration":2}`
	status, _ := sjson.SetRaw(first.json(), "conditions.-1", migrating)
	obj, _ = sjson.SetRawBytes(obj, "status", []byte(status))
	if again, changed := c.statusOf(obj, defs.Load(), defs.Problems()); changed {
		t.Fatalf("status rewritten for a condition it does not own:\n%s\n%s", status, again.json())
	}
	defs.SetAPIDefinitions(nil) // no longer served: rewritten
	s, changed := c.statusOf(obj, defs.Load(), defs.Problems())
	if out := s.json(); !changed || !strings.Contains(out, migrating) {
		t.Fatalf("status after unserving: %v %s, want %s kept", changed, out, migrating)
	}
}
