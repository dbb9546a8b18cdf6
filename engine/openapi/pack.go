package openapi

import (
	"bytes"
	"compress/flate"
	"io"
	"sync"
)

// packed is bytes kept DEFLATE-compressed. The v2 document is tens of
// megabytes at a thousand kinds and read by few clients, but it is highly
// repetitive (every kind's paths say the same with other names): packed,
// it keeps a twentieth of that, and inflating it as it is written costs
// less than sending it.
type packed struct {
	data []byte
	size int // of the bytes unpacked
}

// deflaters are compressors to reuse: each holds about a megabyte of
// tables, more than most of what it packs.
var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression) // a valid level
	return w
}}

// pack compresses b.
func pack(b []byte) packed {
	var buf bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	_, _ = w.Write(b) // a bytes.Buffer takes all
	_ = w.Close()
	return packed{data: bytes.Clone(buf.Bytes()), size: len(b)}
}

// unpacker inflates packed bytes, reusing its state from one to the next.
type unpacker struct{ r io.ReadCloser }

// writeTo writes p unpacked to w.
func (u *unpacker) writeTo(w io.Writer, p packed) error {
	src := bytes.NewReader(p.data)
	if u.r == nil {
		u.r = flate.NewReader(src)
	} else if err := u.r.(flate.Resetter).Reset(src, nil); err != nil {
		return err
	}
	_, err := io.Copy(w, u.r)
	return err
}
