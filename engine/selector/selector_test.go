package selector

import (
	"reflect"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"k8s.io/apimachinery/pkg/labels"
)

func TestParseLabels(t *testing.T) {
	tests := []struct {
		in      string
		want    []engine.Requirement
		wantErr bool
	}{
		{in: "", want: []engine.Requirement{}},
		{in: "app=web", want: []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{"web"}}}},
		{in: "app==web", want: []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{"web"}}}},
		{in: "app!=web", want: []engine.Requirement{{Key: "app", Operator: engine.OpNotEquals, Values: []string{"web"}}}},
		{in: "tier in (a,b)", want: []engine.Requirement{{Key: "tier", Operator: engine.OpIn, Values: []string{"a", "b"}}}},
		{in: "tier notin (a)", want: []engine.Requirement{{Key: "tier", Operator: engine.OpNotIn, Values: []string{"a"}}}},
		{in: "app.kubernetes.io/name", want: []engine.Requirement{{Key: "app.kubernetes.io/name", Operator: engine.OpExists, Values: []string{}}}},
		{in: "!old", want: []engine.Requirement{{Key: "old", Operator: engine.OpDoesNotExist, Values: []string{}}}},
		{in: "app=", want: []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{""}}}},
		{in: "app in (", wantErr: true},
		{in: "a b", wantErr: true},
		{in: "-bad=x", wantErr: true},
		{in: "num>5", want: []engine.Requirement{{Key: "num", Operator: engine.OpGreaterThan, Values: []string{"5"}}}},
		{in: "num<5", want: []engine.Requirement{{Key: "num", Operator: engine.OpLessThan, Values: []string{"5"}}}},
		{in: "num>x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLabels(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseLabels(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				if engine.ErrorCode(err) != engine.CodeBadRequest {
					t.Errorf("error code = %v, want BadRequest", engine.ErrorCode(err))
				}
				// The message is the parser's, as kube-apiserver sends it.
				if _, parseErr := labels.Parse(tt.in); parseErr == nil || err.(*engine.Error).Message != parseErr.Error() {
					t.Errorf("message %q; want the parser's %v", err.(*engine.Error).Message, parseErr)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseLabels(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		in      string
		want    []engine.FieldRequirement
		wantErr bool
	}{
		{in: "metadata.name=foo", want: []engine.FieldRequirement{{Path: "metadata.name", Operator: engine.OpEquals, Value: "foo"}}},
		{in: "metadata.namespace!=kube-system,spec.color==red", want: []engine.FieldRequirement{
			{Path: "metadata.namespace", Operator: engine.OpNotEquals, Value: "kube-system"},
			{Path: "spec.color", Operator: engine.OpEquals, Value: "red"},
		}},
		{in: "metadata.name", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseFields(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseFields(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseFields(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}
