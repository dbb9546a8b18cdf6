package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/tidwall/gjson"
)

// Every write stores and answers its body with
// metadata.resourceVersion at the write's resourceVersion, whatever the
// body's text: the statements splice it into the text at the place the
// server found (body_at_resource_version), and repair what a text with
// repeated keys would make of that (jsonb keeps the last of them).
func TestWritesStampTheirResourceVersion(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	const tail = `,"spec":{"size":3}}`
	bodies := []struct{ name, text string }{
		{"usual", `{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{"name":"%s","uid":"6f1c9e5a-0000-4000-8000-000000000001"}` + tail},
		{"resourceversion-sent", `{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{"name":"%s","resourceVersion":"999"}` + tail},
		{"metadata-empty", `{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{}` + tail},
		{"multibyte-before", `{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{"annotations":{"note":"é 😀 ü"},"name":"%s"}` + tail},
		{"label-named-resourceversion", `{"apiVersion":"example.com/v1","kind":"Pipe","metadata":{"labels":{"resourceVersion":"x"},"name":"%s"}` + tail},
		{"spaces", `{ "apiVersion" : "example.com/v1", "metadata" : { "name" : "%s" } , "spec" : { } }`},
		{"metadata-twice", `{"apiVersion":"example.com/v1","metadata":{"name":"old"},"metadata":{"name":"%s","labels":{"a":"b"}}` + tail},
		{"resourceversion-twice", `{"apiVersion":"example.com/v1","metadata":{"name":"%s","resourceVersion":"1","resourceVersion":"2"}` + tail},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			key := engine.ObjectKey{Resource: pipes, Name: "p-" + b.name}
			body := []byte(strings.Replace(b.text, "%s", key.Name, 1))
			created, err := s.Create(ctx, engine.Object{Key: key, StoredVersion: "v1", Body: body})
			if err != nil {
				t.Fatal(err)
			}
			checkStamped(t, s, "create", key, created)

			updated, err := s.Update(ctx, engine.Object{Key: key, StoredVersion: "v1", Body: body, ResourceVersion: created.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			checkStamped(t, s, "update", key, updated)

			deleted, err := s.Delete(ctx, engine.Object{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(deleted.Body, "metadata.resourceVersion").String(); got != strconv.FormatInt(deleted.ResourceVersion, 10) {
				t.Errorf("delete answered resourceVersion %q, want %d: %s", got, deleted.ResourceVersion, deleted.Body)
			}
		})
	}
}

// checkStamped checks a write's answer and the stored object both carry
// the write's resourceVersion, and that the stored object is what was
// written.
func checkStamped(t *testing.T, s *postgres.Store, verb string, key engine.ObjectKey, answer engine.Object) {
	t.Helper()
	want := strconv.FormatInt(answer.ResourceVersion, 10)
	if got := gjson.GetBytes(answer.Body, "metadata.resourceVersion").String(); got != want {
		t.Errorf("%s answered resourceVersion %q, want %s: %s", verb, got, want, answer.Body)
	}
	stored, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if stored.ResourceVersion != answer.ResourceVersion {
		t.Errorf("%s: stored at %d, answered %d", verb, stored.ResourceVersion, answer.ResourceVersion)
	}
	if got := gjson.GetBytes(stored.Body, "metadata.resourceVersion").String(); got != want {
		t.Errorf("%s stored resourceVersion %q, want %s: %s", verb, got, want, stored.Body)
	}
	if got := gjson.GetBytes(stored.Body, "spec").Raw; got == "" {
		t.Errorf("%s stored no spec: %s", verb, stored.Body)
	}
}
