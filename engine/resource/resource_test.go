package resource

import (
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
	}
	for _, tt := range tests {
		if got := sameJSON([]byte(tt.a), []byte(tt.b), tt.ignore...); got != tt.want {
			t.Errorf("sameJSON(%s, %s, %v) = %v, want %v", tt.a, tt.b, tt.ignore, got, tt.want)
		}
	}
}

func TestUnknownFields(t *testing.T) {
	tests := []struct {
		directive string
		removed   []string
		warnings  int
		code      engine.Code
	}{
		{FieldValidationWarn, []string{"spec.a", "spec.b"}, 2, ""},
		{FieldValidationIgnore, []string{"spec.a"}, 0, ""},
		{FieldValidationStrict, []string{"spec.a"}, 0, engine.CodeBadRequest},
		{FieldValidationStrict, nil, 0, ""},
	}
	for _, tt := range tests {
		w, err := unknownFields(tt.removed, tt.directive)
		if len(w) != tt.warnings || engine.ErrorCode(err) != tt.code {
			t.Errorf("unknownFields(%v, %s) = %v, %v", tt.removed, tt.directive, w, err)
		}
	}
}

func TestNewUID(t *testing.T) {
	a, b := newUID(), newUID()
	if len(a) != 36 || a[14] != '4' || a == b {
		t.Fatalf("newUID = %q, %q", a, b)
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
