package resource

import "testing"

// TestSetManagedFields: the list is written where it lies or at the end
// of metadata, byte for byte what the object had around it, and removed
// when there is none.
func TestSetManagedFields(t *testing.T) {
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
			w := &Write{Object: []byte(tt.obj)}
			var mf []byte
			if tt.mf != "" {
				mf = []byte(tt.mf)
			}
			if err := w.setManagedFields(mf); err != nil {
				t.Fatal(err)
			}
			if string(w.Object) != tt.want {
				t.Fatalf("got %s\nwant %s", w.Object, tt.want)
			}
		})
	}
}
