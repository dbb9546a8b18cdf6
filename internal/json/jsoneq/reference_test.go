package jsoneq

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strings"
	"unicode/utf8"
)

// reference is the package's meaning of equal written the slow, obvious
// way: decode both with encoding/json and compare numbers as big.Rat. It
// reports ok false for what it does not judge: documents that are not
// JSON, repeat a member name, are not UTF-8, or have an exponent of more
// than four digits (big.Rat would build the number in full).
func reference(a, b []byte) (equal, ok bool) {
	x, errX := decode(a)
	y, errY := decode(b)
	if errX != nil || errY != nil {
		return false, false
	}
	return same(x, y), true
}

func same(x, y any) bool {
	switch x := x.(type) {
	case map[string]any:
		y, isMap := y.(map[string]any)
		if !isMap || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, found := y[k]; !found || !same(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, isSlice := y.([]any)
		if !isSlice || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case *big.Rat:
		y, isRat := y.(*big.Rat)
		return isRat && x.Cmp(y) == 0
	}
	return x == y // strings, bools and nil
}

var errNotJudged = errors.New("not judged by the reference")

func decode(b []byte) (any, error) {
	if !utf8.Valid(b) {
		return nil, errNotJudged
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errNotJudged
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			return decodeObject(d)
		}
		if tok == '[' {
			return decodeArray(d)
		}
		return nil, errNotJudged
	case json.Number:
		return rat(string(tok))
	}
	return tok, nil
}

func decodeObject(d *json.Decoder) (any, error) {
	m := map[string]any{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		v, err := decodeValue(d)
		if err != nil {
			return nil, err
		}
		if _, repeated := m[k.(string)]; repeated {
			return nil, errNotJudged
		}
		m[k.(string)] = v
	}
	_, err := d.Token()
	return m, err
}

func decodeArray(d *json.Decoder) (any, error) {
	s := []any{}
	for d.More() {
		v, err := decodeValue(d)
		if err != nil {
			return nil, err
		}
		s = append(s, v)
	}
	_, err := d.Token()
	return s, err
}

func rat(n string) (any, error) {
	if i := strings.IndexAny(n, "eE"); i >= 0 && len(strings.TrimLeft(n[i+1:], "+-0")) > 4 {
		return nil, errNotJudged
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return nil, errNotJudged
	}
	return r, nil
}
