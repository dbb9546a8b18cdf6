package meta

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// setFastCases are metadata at the edges of encoding/json's rules:
// omitempty, escapes, invalid UTF-8, map key order, times.
func setFastCases() map[string]metav1.ObjectMeta {
	grace, zero := int64(30), int64(0)
	created := metav1.NewTime(time.Date(2026, 11, 28, 13, 0, 0, 999, time.FixedZone("x", 3600)))
	var never metav1.Time
	return map[string]metav1.ObjectMeta{
		"empty": {},
		"usual": {Name: "w1", Namespace: "default", UID: "2b0e6a4e-2c1c-4bb8-9d5a-0d6f3c1c1d11", ResourceVersion: "42",
			Generation: 3, CreationTimestamp: created, Labels: map[string]string{"tier": "b", "app": "a", "shard": "1"},
			Annotations: map[string]string{"example.com/owner": "someone@example.com"}},
		"every field": {Name: "a", GenerateName: "a-", Namespace: "n", SelfLink: "/x", UID: "u", ResourceVersion: "1",
			Generation: math.MinInt64, CreationTimestamp: created, DeletionTimestamp: &created, DeletionGracePeriodSeconds: &grace,
			Labels: map[string]string{"a": ""}, Annotations: map[string]string{"": ""}, Finalizers: []string{"example.com/f", "<&>"}},
		"zero pointers": {DeletionTimestamp: &never, DeletionGracePeriodSeconds: &zero, Labels: map[string]string{}, Finalizers: []string{}},
		"escapes":       {Name: "a\"b\\c\n\t\x00\x7f<>&\u2028\u2029é\xff\xfe", Labels: map[string]string{"é": "\xc3", "<": ">", "Z": "a", "a": "Z"}},
		"many labels":   {Labels: manyLabels(40)},
		"old time":      {CreationTimestamp: metav1.NewTime(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC))},
	}
}

func manyLabels(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[strings.Repeat("k", n-i)] = strings.Repeat("v", i)
	}
	return m
}

// TestSetFastAgrees: appendFast writes the bytes encoding/json writes.
func TestSetFastAgrees(t *testing.T) {
	for name, m := range setFastCases() {
		t.Run(name, func(t *testing.T) { setFastAgrees(t, &m) })
	}
}

// FuzzSetFastAgrees: as TestSetFastAgrees, for any strings and numbers.
func FuzzSetFastAgrees(f *testing.F) {
	f.Add("w1", "default", "uid", "42", int64(3), int64(1764334800), int64(0), "app", "web", "example.com/f", uint8(0))
	f.Add("a\"<", "", "", "", int64(0), int64(0), int64(-5), "é", "\xff", "", uint8(255))
	f.Fuzz(func(t *testing.T, name, namespace, uid, rv string, generation, created, grace int64, key, value, finalizer string, flags uint8) {
		m := metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(uid), ResourceVersion: rv, Generation: generation,
			Labels: map[string]string{key: value, value: key}, Annotations: map[string]string{key + "/" + value: name}}
		if created != 0 {
			m.CreationTimestamp = metav1.Unix(created%(1<<40), grace)
		}
		if flags&1 != 0 {
			m.DeletionTimestamp = &m.CreationTimestamp
		}
		if flags&2 != 0 {
			m.DeletionGracePeriodSeconds = &grace
		}
		if flags&4 != 0 {
			m.Finalizers = []string{finalizer, name}
		}
		if flags&8 != 0 {
			m.Labels = nil
		}
		setFastAgrees(t, &m)
	})
}

func setFastAgrees(t *testing.T, m *metav1.ObjectMeta) {
	t.Helper()
	want, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := appendFast(nil, m)
	if !ok || string(got) != string(want) {
		t.Fatalf("appendFast = %s, %v\nencoding/json: %s", got, ok, want)
	}
}

// TestSetFastDeclines: metadata appendFast does not write goes to
// encoding/json, with the same result from Set.
func TestSetFastDeclines(t *testing.T) {
	m := metav1.ObjectMeta{Name: "a", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u"}}}
	if _, ok := appendFast(nil, &m); ok {
		t.Fatal("appendFast wrote owner references")
	}
	out, err := Set([]byte(`{"metadata":{}}`), &m)
	want, _ := json.Marshal(&m)
	if err != nil || string(out) != `{"metadata":`+string(want)+`}` {
		t.Fatalf("Set = %s, %v; want metadata %s", out, err, want)
	}
}
