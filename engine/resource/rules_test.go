package resource

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

func sprocketTarget(t testing.TB) Target {
	t.Helper()
	snap, problems := registry.Load(os.DirFS("testdata"), os.DirFS("testdata/none"))
	if len(problems) > 0 {
		t.Fatalf("load testdata: %v", problems)
	}
	res, ver, ok := snap.Lookup("test.example.com", "v1", "sprockets")
	if !ok {
		t.Fatal("no sprockets in testdata")
	}
	return Target{Resource: res, Version: ver, Namespace: "ns"}
}

func sprocket(spec string) []byte {
	return []byte(`{"apiVersion":"test.example.com/v1","kind":"Sprocket","metadata":{"name":"z","namespace":"ns"},"spec":` + spec + `}`)
}

// TestValidationRulesStage: the stage refuses creates and updates that
// break a rule or a list-map with kube-apiserver's 422 and causes, and runs
// transition rules on update only.
func TestValidationRulesStage(t *testing.T) {
	ctx := context.Background()
	tgt := sprocketTarget(t)
	s := New(newMemStore())
	wantInvalid := func(err error, path, msg string) {
		t.Helper()
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeInvalid || len(e.Causes) != 1 || e.Causes[0].Path != path || e.Causes[0].Message != msg {
			t.Fatalf("err = %#v; want Invalid with one cause %s: %s", err, path, msg)
		}
	}
	_, err := s.Create(ctx, tgt, sprocket(`{"min":3,"max":1}`), WriteOptions{})
	wantInvalid(err, "spec", "Invalid value: min must not exceed max")
	_, err = s.Create(ctx, tgt, sprocket(`{"ports":[{"name":"a"},{"name":"a"}]}`), WriteOptions{})
	wantInvalid(err, "spec.ports[1]", `Duplicate value: {"name":"a"}`)
	created, err := s.Create(ctx, tgt, sprocket(`{"class":"gold"}`), WriteOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	rv := gjson.GetBytes(created.Object, "metadata.resourceVersion").Str
	update := func(spec string) []byte {
		b, _ := sjson.SetBytes(sprocket(spec), "metadata.resourceVersion", rv)
		return b
	}
	_, err = s.Update(ctx, tgt, "z", update(`{"class":"silver"}`), WriteOptions{})
	wantInvalid(err, "spec.class", `Invalid value: "silver": Value is immutable`)
	if _, err := s.Update(ctx, tgt, "z", update(`{"class":"gold","min":1}`), WriteOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
}
