package meta

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// usualMetadata is metadata as clients and the server write it: parseFast
// must decide it.
const usualMetadata = `{"name":"w1","generateName":"w-","namespace":"default","selfLink":"/x",` +
	`"uid":"2b0e6a4e-2c1c-4bb8-9d5a-0d6f3c1c1d11","resourceVersion":"42","generation":3,` +
	`"creationTimestamp":"2024-05-01T10:00:00Z","deletionTimestamp":"2024-05-02T10:00:00Z","deletionGracePeriodSeconds":30,` +
	`"labels":{"app":"bench","tier":"backend","é":"ü"},"annotations":{"example.com/owner":"someone@example.com"},` +
	`"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1","controller":true,"blockOwnerDeletion":false}],` +
	`"finalizers":["example.com/f"],"managedFields":[{"manager":"m","operation":"Update","time":"2024-05-01T10:00:00Z"}]}`

// TestParseFastDecidesUsualMetadata: the usual shapes take the fast path.
func TestParseFastDecidesUsualMetadata(t *testing.T) {
	for _, md := range []string{usualMetadata, `{}`, `{"name":"a","labels":{},"finalizers":[],"ownerReferences":[]}`} {
		if _, ok := parseFast(gjson.Parse(md)); !ok {
			t.Errorf("parseFast(%s) left it to encoding/json", md)
		}
	}
}

// TestParseFastAgrees: whatever parseFast decides, it decides as
// encoding/json does; it runs on odd shapes and on thousands of random
// variations of the usual metadata (values of other types, escapes, case,
// unknown and repeated names), and both answers must occur.
func TestParseFastAgrees(t *testing.T) {
	docs := []string{
		usualMetadata, `{}`, `{"Name":"a"}`, `{"name":"a","name":"b"}`, `{"labels":{"a":"1","a":"2"}}`,
		`{"labels":null}`, `{"name":null}`, `{"name":"a\u00e9"}`, `{"name":"a\\"}`, `{"generation":1.0}`,
		`{"generation":1e3}`, `{"generation":-0}`, `{"generation":99999999999999999999}`,
		`{"creationTimestamp":"yesterday"}`, `{"creationTimestamp":null}`, `{"deletionTimestamp":""}`,
		`{"ownerReferences":[{"name":"a","extra":1}]}`, `{"ownerReferences":[{"controller":"yes"}]}`,
		`{"finalizers":[1]}`, `{"finalizers":"a"}`, `{"clusterName":"c"}`, `{"managedFields":5,"name":"a"}`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		docs = append(docs, mutateMetadata(rng, usualMetadata))
	}
	decided, left := 0, 0
	for _, md := range docs {
		fast, ok := parseFast(gjson.Parse(md))
		if !ok {
			left++
			continue
		}
		decided++
		slow := &withoutManagedFields{}
		if err := json.Unmarshal([]byte(md), slow); err != nil {
			t.Fatalf("parseFast decided %s, encoding/json refuses it: %v", md, err)
		}
		if !reflect.DeepEqual(fast, &slow.ObjectMeta) {
			t.Fatalf("parseFast(%s) =\n%#v\nencoding/json:\n%#v", md, fast, &slow.ObjectMeta)
		}
	}
	if decided == 0 || left == 0 {
		t.Fatalf("decided %d, left %d: both must occur", decided, left)
	}
}

// metadataValues replace values in mutateMetadata: every JSON type, and
// strings that encoding/json decodes differently from their bytes.
var metadataValues = []string{`null`, `true`, `1`, `-1`, `1.5`, `"a"`, `""`, `"a\"b"`, `"\ud800"`,
	`"2024-01-01T00:00:00Z"`, `[]`, `["a"]`, `{}`, `{"a":"b"}`, `{"A":1}`}

// mutateMetadata replaces, removes or adds one member of md, or renames one.
func mutateMetadata(rng *rand.Rand, md string) string {
	var paths []string
	var walk func(v gjson.Result, prefix string)
	walk = func(v gjson.Result, prefix string) {
		i := 0
		v.ForEach(func(k, x gjson.Result) bool {
			p := fmt.Sprint(i)
			if k.Type == gjson.String {
				p = gjson.Escape(k.Str)
			}
			if prefix != "" {
				p = prefix + "." + p
			}
			paths = append(paths, p)
			if x.IsObject() || x.IsArray() {
				walk(x, p)
			}
			i++
			return true
		})
	}
	walk(gjson.Parse(md), "")
	p := paths[rng.IntN(len(paths))]
	var out string
	var err error
	switch rng.IntN(3) {
	case 0:
		out, err = sjson.Delete(md, p)
	case 1:
		out, err = sjson.SetRaw(md, p+"X", metadataValues[rng.IntN(len(metadataValues))])
	default:
		out, err = sjson.SetRaw(md, p, metadataValues[rng.IntN(len(metadataValues))])
	}
	if err != nil || !gjson.Valid(out) {
		return md
	}
	return out
}

// BenchmarkParse decodes the metadata of a typical object.
func BenchmarkParse(b *testing.B) {
	obj := []byte(`{"apiVersion":"v1","kind":"X","metadata":` + usualMetadata + `,"spec":{}}`)
	for b.Loop() {
		if _, err := Parse(obj); err != nil {
			b.Fatal(err)
		}
	}
}
