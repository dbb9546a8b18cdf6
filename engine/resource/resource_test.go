package resource

import (
	"slices"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b   string
		ignore []string
		want   bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, nil, true},
		{`{"a":1}`, `{"a": 1}`, nil, true},
		{`{"a":{"x":1,"y":2}}`, `{"a":{"y":2,"x":1}}`, nil, true},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, nil, false},
		{`{"a":1,"metadata":{"x":1}}`, `{"a":1,"metadata":{"x":2}}`, []string{"metadata"}, true},
		{`{"a":1,"status":{}}`, `{"a":2,"status":{}}`, []string{"status"}, false},
		{`{"a":1,"status":{"x":1}}`, `{"a":1}`, []string{"status"}, true},
		{`{"a":1}`, `{"a":1,"b":null}`, nil, false},
		{`{"a":1,"b":2}`, `{"a":1}`, nil, false},
		{`{"a":1}`, `{"a":1,"b":2}`, nil, false},
		{`{"a":1.0}`, `{"a":1}`, nil, false},
		{`{"a":"1"}`, `{"a":1}`, nil, false},
		{`{"a":[]}`, `{"a":{}}`, nil, false},
		{`{"a":[{"x":1,"y":[true,null]}]}`, `{"a":[{"y":[true,null],"x":1}]}`, nil, true},
		{`{"a":[1]}`, `{"a":[1,1]}`, nil, false},
		{`{"a":{"metadata":1}}`, `{"a":{"metadata":2}}`, []string{"metadata"}, false}, // top level only
		{`{"a":true}`, `{"a":false}`, nil, false},
		{`{"a":"x\u0041"}`, `{"a":"x\u0041"}`, nil, true},
	}
	for _, tt := range tests {
		if got := sameJSON([]byte(tt.a), []byte(tt.b), tt.ignore...); got != tt.want {
			t.Errorf("sameJSON(%s, %s, %v) = %v, want %v", tt.a, tt.b, tt.ignore, got, tt.want)
		}
	}
}

func TestDecodingProblems(t *testing.T) {
	widget := Target{Resource: &registry.Resource{Kind: "Widget"}, Version: &registry.Version{Name: "v1"}}
	tests := []struct {
		directive string
		paths     []string
		warnings  []string
		message   string
	}{
		{FieldValidationWarn, []string{"spec.a", "spec.b"}, []string{`unknown field "spec.a"`, `unknown field "spec.b"`}, ""},
		{"", []string{"spec.a"}, []string{`unknown field "spec.a"`}, ""},
		{FieldValidationIgnore, []string{"spec.a"}, nil, ""},
		{FieldValidationStrict, []string{"spec.a", "spec.b"}, nil,
			`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.a", unknown field "spec.b"`},
		{FieldValidationStrict, nil, nil, ""},
	}
	for _, tt := range tests {
		w := &Write{Target: widget, Options: WriteOptions{FieldValidation: tt.directive}}
		w.reportFields("unknown", tt.paths)
		var message string
		if err := w.strictError(); err != nil {
			message = err.(*engine.Error).Message
			if engine.ErrorCode(err) != engine.CodeBadRequest {
				t.Errorf("%s %v: code %s; want BadRequest", tt.directive, tt.paths, engine.ErrorCode(err))
			}
		}
		if !slices.Equal(w.Warnings, tt.warnings) || message != tt.message {
			t.Errorf("reportFields(%v, %q) = %q, %q; want %q, %q", tt.paths, tt.directive, w.Warnings, message, tt.warnings, tt.message)
		}
	}
}

func TestCheckWatchOptions(t *testing.T) {
	target := Target{Resource: &registry.Resource{Kind: "Widget"}}
	yes, no := true, false
	tests := []struct {
		name        string
		opts        WatchOptions
		wantInitial bool
		wantErr     bool
	}{
		{"rv unset sends the state", WatchOptions{}, true, false},
		{"rv 0 sends the state", WatchOptions{List: engine.ListOptions{ResourceVersion: "0"}}, true, false},
		{"rv set starts after it", WatchOptions{List: engine.ListOptions{ResourceVersion: "5"}}, false, false},
		{"match without sendInitialEvents", WatchOptions{List: engine.ListOptions{ResourceVersionMatch: engine.MatchNotOlderThan}}, false, true},
		{"watch list", WatchOptions{SendInitialEvents: &yes, AllowBookmarks: true,
			List: engine.ListOptions{ResourceVersionMatch: engine.MatchNotOlderThan}}, true, false},
		{"watch list without bookmarks", WatchOptions{SendInitialEvents: &yes,
			List: engine.ListOptions{ResourceVersionMatch: engine.MatchNotOlderThan}}, false, true},
		{"sendInitialEvents=false", WatchOptions{SendInitialEvents: &no,
			List: engine.ListOptions{ResourceVersion: "0", ResourceVersionMatch: engine.MatchNotOlderThan}}, false, false},
		{"sendInitialEvents with Exact", WatchOptions{SendInitialEvents: &yes, AllowBookmarks: true,
			List: engine.ListOptions{ResourceVersion: "5", ResourceVersionMatch: engine.MatchExact}}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			initial, err := checkWatchOptions(target, tt.opts)
			if (err != nil) != tt.wantErr || (err == nil && initial != tt.wantInitial) {
				t.Fatalf("checkWatchOptions = %v, %v; want %v, err %v", initial, err, tt.wantInitial, tt.wantErr)
			}
			if err != nil && engine.ErrorCode(err) != engine.CodeInvalid {
				t.Fatalf("code = %s", engine.ErrorCode(err))
			}
		})
	}
}

// BenchmarkSameJSON compares a ~1.2 KB object with a copy whose keys are
// in another order, as an update does (twice).
func BenchmarkSameJSON(b *testing.B) {
	obj := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w-1","namespace":"default",` +
		`"uid":"6f1c9e5a-0000-4000-8000-c8ce1068c4cd","resourceVersion":"42","generation":1,"creationTimestamp":"2026-11-22T05:00:00Z",` +
		`"labels":{"group":"g7","tier":"front","app":"bench"}},"spec":{"color":"red","size":3,"tags":["a","b","c"],` +
		`"data":"` + strings.Repeat("x", 900) + `"}}`)
	reordered := []byte(`{"kind":"Widget","spec":{"size":3,"data":"` + strings.Repeat("x", 900) + `","color":"red","tags":["a","b","c"]},` +
		`"apiVersion":"shop.example.com/v1","metadata":{"namespace":"default","name":"w-1",` +
		`"uid":"6f1c9e5a-0000-4000-8000-c8ce1068c4cd","resourceVersion":"42","generation":1,"creationTimestamp":"2026-11-22T05:00:00Z",` +
		`"labels":{"tier":"front","group":"g7","app":"bench"}}}`)
	if !sameJSON(obj, reordered) {
		b.Fatal("not the same")
	}
	b.ReportAllocs()
	for b.Loop() {
		sameJSON(obj, reordered, "metadata")
	}
}
