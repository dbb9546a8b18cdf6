package apply

import "testing"

// TestWithManagedFields: the list is written where it lies or at the end
// of metadata, byte for byte what the object had around it, and removed
// when there is none.
func TestWithManagedFields(t *testing.T) {
	const mf = `[{"manager":"m"}]`
	tests := []struct {
		name, obj string
		mf        string // "": none
		want      string
	}{
		{"replaced", `{"metadata":{"name":"a","managedFields":[{"manager":"old"}],"uid":"u"},"spec":{}}`, mf,
			`{"metadata":{"name":"a","managedFields":` + mf + `,"uid":"u"},"spec":{}}`},
		{"added", `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, mf,
			`{"metadata":{"name":"a","managedFields":` + mf + `},"spec":{"managedFields":1}}`},
		{"added to empty metadata", `{"metadata":{ },"spec":{}}`, mf, `{"metadata":{ "managedFields":` + mf + `},"spec":{}}`},
		{"no metadata", `{"spec":{}}`, mf, `{"spec":{},"metadata":{"managedFields":` + mf + `}}`},
		{"removed", `{"metadata":{"name":"a","managedFields":[]},"spec":{}}`, "", `{"metadata":{"name":"a"},"spec":{}}`},
		{"none to remove", `{"metadata":{"name":"a"}}`, "", `{"metadata":{"name":"a"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mf []byte
			if tt.mf != "" {
				mf = []byte(tt.mf)
			}
			got, err := WithManagedFields([]byte(tt.obj), mf)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestCutManagedFields: the list is cut off with its key and one comma,
// the rest of the object byte for byte as it was, and the object it was
// cut from is left as it is.
func TestCutManagedFields(t *testing.T) {
	const mf = `[{"manager":"m","fieldsV1":{"f:spec":{}}}]`
	tests := []struct {
		name, obj string
		want      string
		mf        string // "": none
	}{
		{"between", `{"metadata":{"name":"a","managedFields":` + mf + `,"uid":"u"},"spec":{}}`,
			`{"metadata":{"name":"a","uid":"u"},"spec":{}}`, mf},
		{"first", `{"metadata":{"managedFields":` + mf + `,"uid":"u"}}`, `{"metadata":{"uid":"u"}}`, mf},
		{"last", `{"metadata":{"name":"a","managedFields":` + mf + `}}`, `{"metadata":{"name":"a"}}`, mf},
		{"alone", `{"metadata":{"managedFields":` + mf + `},"spec":{}}`, `{"metadata":{},"spec":{}}`, mf},
		{"spaced", `{"metadata": {"name": "a" , "managedFields" : ` + mf + ` , "uid": "u"}}`,
			`{"metadata": {"name": "a"  , "uid": "u"}}`, mf},
		{"escaped key", `{"metadata":{"name":"a","managed\u0046ields":` + mf + `}}`, `{"metadata":{"name":"a"}}`, mf},
		{"empty list", `{"metadata":{"managedFields":[],"name":"a"}}`, `{"metadata":{"name":"a"}}`, `[]`},
		{"none", `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, `{"metadata":{"name":"a"},"spec":{"managedFields":1}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := []byte(tt.obj)
			rest, got, err := CutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(rest) != tt.want || string(got) != tt.mf || (got == nil) != (tt.mf == "") {
				t.Fatalf("got %s and %q\nwant %s and %q", rest, got, tt.want, tt.mf)
			}
			if string(obj) != tt.obj {
				t.Fatalf("the object changed: %s", obj)
			}
		})
	}
}
