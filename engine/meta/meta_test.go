package meta

import (
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, obj string
		wantName  string
		wantErr   bool
	}{
		{"none", `{"kind":"X"}`, "", false},
		{"null", `{"metadata":null}`, "", false},
		{"fields", `{"metadata":{"name":"a","labels":{"k":"v"},"unknownField":1}}`, "a", false},
		{"not an object", `{"metadata":"a"}`, "", true},
		{"wrong type", `{"metadata":{"labels":{"k":5}}}`, "", true},
		{"managedFields skipped", `{"metadata":{"managedFields":[{"manager":"m","time":5}],"name":"a"}}`, "a", false},
		{"managedFields last", `{"metadata":{"name":"a","managedFields":{"not":"a list"}}}`, "a", false},
		{"managedFields twice", `{"metadata":{"managedFields":[],"name":"a","managedFields":[{"time":1}]}}`, "a", false},
		{"managedFields then a wrong type", `{"metadata":{"managedFields":[],"labels":{"k":5}}}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.obj))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if engine.ErrorCode(err) != engine.CodeBadRequest {
					t.Fatalf("code = %s", engine.ErrorCode(err))
				}
				return
			}
			if m.Name != tt.wantName || m.ManagedFields != nil {
				t.Fatalf("name = %q, managedFields = %v", m.Name, m.ManagedFields)
			}
		})
	}
}

func TestSetDropsUnknownMetadata(t *testing.T) {
	m, err := Parse([]byte(`{"metadata":{"name":"a","bogus":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Set([]byte(`{"kind":"X","metadata":{"name":"a","bogus":true}}`), m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "bogus") || !strings.Contains(string(out), `"name":"a"`) {
		t.Fatalf("Set = %s", out)
	}
}

func TestValidateCreate(t *testing.T) {
	tests := []struct {
		name, obj   string
		namespaced  bool
		isNamespace bool
		wantFields  []string
	}{
		{"valid", `{"metadata":{"name":"a.b-c","namespace":"ns"}}`, true, false, nil},
		{"missing name", `{"metadata":{"namespace":"ns"}}`, true, false, []string{"metadata.name"}},
		{"bad subdomain", `{"metadata":{"name":"A_b","namespace":"ns"}}`, true, false, []string{"metadata.name"}},
		{"namespace names are labels", `{"metadata":{"name":"a.b"}}`, false, true, []string{"metadata.name"}},
		{"namespace required", `{"metadata":{"name":"a"}}`, true, false, []string{"metadata.namespace"}},
		{"bad label key and value", `{"metadata":{"name":"a","namespace":"n","labels":{"a b":"c","ok":"-bad-"}}}`, true, false,
			[]string{"metadata.labels", "metadata.labels"}},
		{"bad annotation", `{"metadata":{"name":"a","namespace":"n","annotations":{"a b":"c"}}}`, true, false, []string{"metadata.annotations"}},
		{"bad finalizer", `{"metadata":{"name":"a","namespace":"n","finalizers":["not a name"]}}`, true, false, []string{"metadata.finalizers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.obj))
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, e := range ValidateCreate(m, tt.namespaced, NameRule(tt.isNamespace)) {
				fields = append(fields, e.Path)
				if e.Message == "" || e.Type == "" {
					t.Errorf("field error without message or type: %+v", e)
				}
			}
			if strings.Join(fields, ",") != strings.Join(tt.wantFields, ",") {
				t.Fatalf("fields = %v, want %v", fields, tt.wantFields)
			}
		})
	}
}

func TestGenerateName(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, base := range []string{"web-", long} {
		name := GenerateName(base)
		if len(name) > 63 || len(name) < 6 {
			t.Fatalf("GenerateName(%q) = %q", base, name)
		}
		for _, c := range name[len(name)-5:] {
			if !strings.ContainsRune(generatedSuffixChars, c) {
				t.Fatalf("suffix char %q not from the generator's alphabet", c)
			}
		}
	}
}
