package convert_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// FuzzConvert: the shipped Pipe rules convert any object between any two
// versions into JSON, or refuse it, never panicking.
func FuzzConvert(f *testing.F) {
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		f.Fatalf("shipped definitions: %v", problems)
	}
	res, _, ok := snap.Lookup("plumbing.example.com", "v2", "pipes")
	if !ok || res.Conversion == nil {
		f.Fatal("no Pipe rules")
	}
	for _, dir := range []string{"pipe-v1-to-v2", "pipe-v2-to-v1", "pipe-v3-to-v2"} {
		data, err := os.ReadFile("../../conversions/testdata/" + dir + "/in.json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), uint8(1))
		f.Add(data, uint8(2), uint8(0))
	}
	f.Add([]byte(`{"spec":{"size":"x","tags":[1,{}],"outlets":null}}`), uint8(1), uint8(2))
	versions := []string{"v1", "v2", "v3"}
	f.Fuzz(func(t *testing.T, obj []byte, from, to uint8) {
		if !json.Valid(obj) {
			return
		}
		out, err := res.Conversion.Convert(obj, versions[int(from)%3], versions[int(to)%3])
		if err == nil && !json.Valid(out) {
			t.Fatalf("Convert(%s) = %s: not JSON", obj, out)
		}
	})
}
