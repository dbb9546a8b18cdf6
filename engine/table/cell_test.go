package table

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// beyondInt64 is 2^63: Go's conversion of it to int64, which Kubernetes
// applies, depends on the machine.
var beyondInt64 = float64(math.MaxInt64)

func TestAppendCell(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, colType, value, want string // value "" means no value found
	}{
		{"integer", "integer", `7`, `7`},
		{"integer from a float truncates", "integer", `-3.9`, `-3`},
		{"integer from an exponent", "integer", `1e2`, `100`},
		{"integer from 1.0", "integer", `1.0`, `1`},
		{"integer beyond int64", "integer", `9223372036854775808`, fmt.Sprint(int64(beyondInt64))},
		{"integer from a string", "integer", `"7"`, `null`},
		{"number", "number", `0.25`, `0.25`},
		{"number from an integer", "number", `7`, `7`},
		{"large number", "number", `1e21`, `1e+21`},
		{"small number", "number", `0.0000001`, `1e-7`},
		{"infinite number", "number", `1e400`, `null`},
		{"number from a bool", "number", `true`, `null`},
		{"boolean", "boolean", `false`, `false`},
		{"boolean from a string", "boolean", `"true"`, `null`},
		{"date", "date", `"2024-05-01T11:59:30Z"`, `"30s"`},
		{"date with an offset", "date", `"2024-05-01T13:50:00+02:00"`, `"10m"`},
		{"date just ahead", "date", `"2024-05-01T12:00:01Z"`, `"0s"`},
		{"date in the future", "date", `"2024-05-01T13:00:00Z"`, `"\u003cinvalid\u003e"`},
		{"empty date", "date", `""`, `"\u003cunknown\u003e"`},
		{"null date string", "date", `"null"`, `"\u003cunknown\u003e"`},
		{"zero date", "date", `"0001-01-01T00:00:00Z"`, `"\u003cunknown\u003e"`},
		{"date without a zone", "date", `"2024-05-01T11:00:00"`, `"\u003cinvalid\u003e"`},
		{"date from a number", "date", `1714564800`, `null`},
		{"string", "string", `"a \"b\""`, `"a \"b\""`},
		{"string from an integer", "string", `12345678901234567890`, `"1.2345678901234567e+19"`},
		{"string from a float", "string", `100000000.0`, `"1e+08"`},
		{"string from an object", "string", `{"b":1.0,"a":[2,"<x>"]}`, `"{\"a\":[2,\"\\u003cx\\u003e\"],\"b\":1}"`},
		{"null", "integer", `null`, `null`},
		{"unknown type", "duration", `1`, `null`},
		{"nothing found", "string", ``, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := gjson.Parse(tt.value)
			got := string(appendCell(nil, tt.colType, v, tt.value != "", now))
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// appendFloat must spell numbers exactly as encoding/json, which
// kube-apiserver encodes Tables with.
func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, -0.0, 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 123456789, 1e20, 1e21,
		-1e21, 1.7976931348623157e308, 5e-324, math.Pi, 2900} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// formatNumber must print as fmt.Fprint prints Kubernetes' decoded number.
func TestFormatNumberMatchesFmt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		kube any // what k8s.io/apimachinery/pkg/util/json decodes raw into
	}{
		{"3", int64(3)},
		{"-0", int64(0)},
		{"3.0", float64(3)},
		{"2.9e3", float64(2900)},
		{"1e21", float64(1e21)},
		{"0.000001", float64(0.000001)},
		{"9223372036854775807", int64(9223372036854775807)},
		{"9223372036854775808", float64(9223372036854775808)},
	}
	for _, tt := range tests {
		if got, want := formatNumber(gjson.Parse(tt.raw)), fmt.Sprint(tt.kube); got != want {
			t.Errorf("formatNumber(%s) = %s, want %s", tt.raw, got, want)
		}
	}
}
