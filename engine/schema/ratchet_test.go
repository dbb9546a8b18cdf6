package schema

import (
	"slices"
	"testing"
)

func TestValidateUpdateRatchets(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","required":["owner"],"properties":{
		"replicas":{"type":"integer","maximum":5},
		"color":{"type":"string","enum":["red","blue"]},
		"owner":{"type":"string"},
		"ports":{"type":"array","items":{"type":"integer","maximum":100}},
		"limits":{"type":"object","additionalProperties":{"type":"integer","maximum":10}}}}}}`)
	// Stored before the schema grew stricter: replicas, color, a port and a limit are now invalid.
	const old = `{"spec":{"owner":"ann","replicas":9,"color":"green","ports":[80,8080],"limits":{"cpu":20,"mem":1},"note":1}}`
	tests := []struct {
		name, obj string
		want      []string // paths of the problems left
	}{
		{"unchanged invalid fields, other field changed",
			`{"spec":{"owner":"bob","replicas":9,"color":"green","ports":[80,8080],"limits":{"mem":2,"cpu":20}}}`, nil},
		{"same values, other spelling and key order",
			`{"spec":{"limits":{"cpu":2e1,"mem":1},"ports":[80,8080],"color":"green","replicas":9.0,"owner":"ann"}}`, nil},
		{"changed invalid field",
			`{"spec":{"owner":"ann","replicas":10,"color":"green","ports":[80,8080],"limits":{"cpu":20,"mem":1}}}`, []string{"spec.replicas"}},
		{"new invalid field", `{"spec":{"owner":"ann","replicas":9,"color":"green","ports":[80,8080],"limits":{"cpu":20,"mem":1,"gpu":11}}}`,
			[]string{"spec.limits.gpu"}},
		{"a list changed elsewhere: its old invalid item counts again",
			`{"spec":{"owner":"ann","replicas":9,"color":"green","ports":[81,8080],"limits":{"cpu":20,"mem":1}}}`, []string{"spec.ports[1]"}},
		{"required field removed", `{"spec":{"replicas":9,"color":"green","ports":[80,8080],"limits":{"cpu":20,"mem":1}}}`,
			[]string{"spec.owner"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, fe := range s.ValidateUpdate([]byte(tt.obj), []byte(old)) {
				got = append(got, fe.Path)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems at %q, want %q", got, tt.want)
			}
		})
	}
	if errs := s.Validate([]byte(old)); len(errs) != 4 {
		t.Errorf("a create is not ratcheted: %v", errs)
	}
}

func TestValidateUpdateRequiredInChangedObject(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","required":["owner"],"properties":{"size":{"type":"integer"}}}}}`)
	// The object missing owner changed: kube-apiserver reports the missing field again.
	errs := s.ValidateUpdate([]byte(`{"spec":{"size":2}}`), []byte(`{"spec":{"size":1}}`))
	if len(errs) != 1 || errs[0].Path != "spec.owner" {
		t.Errorf("problems: %v", errs)
	}
	if errs := s.ValidateUpdate([]byte(`{"spec":{"size":1}}`), []byte(`{"spec":{"size":1}}`)); len(errs) != 0 {
		t.Errorf("unchanged object: %v", errs)
	}
}
