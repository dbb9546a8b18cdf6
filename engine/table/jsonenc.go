package table

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// appendFloat encodes f as encoding/json encodes a float64 (kube-apiserver
// encodes Tables with it). JSON has no infinities: they become null.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// formatNumber prints a JSON number the way fmt.Fprint prints the int64 or
// float64 Kubernetes decodes it into.
func formatNumber(v gjson.Result) string {
	if i, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	return fmt.Sprint(v.Num)
}

// canonicalJSON re-encodes an object or array as json.Marshal encodes the
// value Kubernetes decodes it into: keys sorted, numbers as int64 or float64.
// Only string columns pointing at objects need it, so it may be slow.
func canonicalJSON(raw string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("decode value: %w", err)
	}
	out, err := json.Marshal(kubeNumbers(v))
	if err != nil {
		return "", fmt.Errorf("encode value: %w", err)
	}
	return string(out), nil
}

// kubeNumbers replaces json.Numbers with int64 or float64, as
// k8s.io/apimachinery/pkg/util/json does.
func kubeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = kubeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = kubeNumbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
	}
	return v
}
