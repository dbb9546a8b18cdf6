package openapi

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"
)

// packed is bytes kept DEFLATE-compressed. The v2 document is tens of
// megabytes at a thousand kinds and read by few clients, but it is highly
// repetitive (every kind's paths say the same with other names): packed,
// it keeps a twentieth of that. Each packed piece is a segment of a
// DEFLATE stream: it ends on a byte boundary, without the final block, so
// that pieces joined are one stream, which a gzip answer sends as it is
// kept, and which is inflated as it is written to other clients.
type packed struct {
	data []byte
	size int    // of the bytes unpacked
	crc  uint32 // CRC-32 (IEEE) of the bytes unpacked, for gzip's trailer
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
	_ = w.Flush()     // a sync flush: byte-aligned, not final
	return packed{data: bytes.Clone(buf.Bytes()), size: len(b), crc: crc32.ChecksumIEEE(b)}
}

// finalBlock ends a DEFLATE stream: an empty final block of fixed codes.
var finalBlock = []byte{0x03, 0x00}

// Body is a document in one encoding, kept packed in pieces, or as it was
// rendered (raw).
type Body struct {
	raw    []byte
	pieces []packed
}

// Write writes the body to w, inflated.
func (b Body) Write(w io.Writer) error {
	if b.raw != nil {
		_, err := w.Write(b.raw)
		return err
	}
	readers := make([]io.Reader, 0, len(b.pieces)+1)
	for _, p := range b.pieces {
		readers = append(readers, bytes.NewReader(p.data))
	}
	readers = append(readers, bytes.NewReader(finalBlock))
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.ReadFrom(flate.NewReader(io.MultiReader(readers...))); err != nil {
		return err
	}
	return bw.Flush()
}

// gzipHeader is a gzip member's header (RFC 1952): DEFLATE, no name, no
// time, unknown system.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// WriteGzip writes the body to w in gzip, as it is kept: one member,
// whose DEFLATE stream is the pieces joined.
func (b Body) WriteGzip(w io.Writer) error {
	if b.raw != nil {
		b.pieces = []packed{pack(b.raw)} // not packed yet: seconds after a change
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(gzipHeader)
	crc, size := uint32(0), uint32(0)
	for _, p := range b.pieces {
		bw.Write(p.data)
		crc = crc32Combine(crc, p.crc, p.size)
		size += uint32(p.size) // gzip keeps the size modulo 2^32
	}
	bw.Write(finalBlock)
	bw.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc), size))
	return bw.Flush()
}

// crc32Combine returns the CRC-32 (IEEE) of a followed by b from a's and
// b's and b's length, as zlib's crc32_combine does: a's CRC shifted by
// lenB zero bytes, added to b's.
func crc32Combine(crcA, crcB uint32, lenB int) uint32 {
	return multModP(xPow8n(lenB), crcA) ^ crcB
}

// multModP multiplies a and b, polynomials over GF(2) written with the
// lowest power in the top bit, modulo the CRC's polynomial. a must not be
// zero.
func multModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; ; m >>= 1 {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32.IEEE
		} else {
			b >>= 1
		}
	}
}

// xPow8n returns x^(8n) modulo the CRC's polynomial.
func xPow8n(n int) uint32 {
	p, sq := uint32(1)<<31, uint32(1)<<23 // x^0, x^8
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			p = multModP(sq, p)
		}
		sq = multModP(sq, sq)
	}
	return p
}
