package httpapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAll(t *testing.T) {
	errBroken := errors.New("connection reset")
	tests := []struct {
		name    string
		body    string
		reader  func(io.Reader) io.Reader
		size    int64 // the declared length; -1: none
		wantCap int   // the capacity of the answer; 0: not checked
		wantErr error
	}{
		{name: "declared", body: strings.Repeat("x", 1300), size: 1300, wantCap: 1301},
		{name: "declared, in pieces", body: strings.Repeat("x", 1300), reader: iotest.OneByteReader, size: 1300, wantCap: 1301},
		{name: "declared, end with the last bytes", body: strings.Repeat("x", 1300), reader: iotest.DataErrReader, size: 1300, wantCap: 1301},
		{name: "empty", body: "", size: 0, wantCap: 1},
		{name: "unknown length", body: strings.Repeat("x", 5000), size: -1},
		{name: "unknown length, in pieces", body: strings.Repeat("x", 700), reader: iotest.HalfReader, size: -1},
		{name: "shorter than declared", body: `{"a":1}`, size: 1000, wantCap: 1001},
		{name: "longer than the room set aside", body: strings.Repeat("x", maxPresizedBody+5000), size: maxPresizedBody + 5000},
		{name: "broken", body: strings.Repeat("x", 100), reader: func(r io.Reader) io.Reader {
			return io.MultiReader(r, iotest.ErrReader(errBroken))
		}, size: 200, wantErr: errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = bytes.NewReader([]byte(tt.body))
			if tt.reader != nil {
				r = tt.reader(r)
			}
			got, err := readAll(r, tt.size)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if string(got) != tt.body {
				t.Errorf("read %d bytes, want the %d sent", len(got), len(tt.body))
			}
			if tt.wantCap != 0 && cap(got) != tt.wantCap {
				t.Errorf("capacity %d, want %d: the body took more than the one allocation", cap(got), tt.wantCap)
			}
		})
	}
}

// The room set aside before a body arrives is bounded, whatever the
// client declares.
func TestReadAllBoundsTheRoomSetAside(t *testing.T) {
	got, err := readAll(strings.NewReader("{}"), maxBodyBytes)
	if err != nil {
		t.Fatal(err)
	}
	if cap(got) != maxPresizedBody+1 {
		t.Errorf("a 2-byte body declared as %d bytes took %d bytes of room, want %d", maxBodyBytes, cap(got), maxPresizedBody+1)
	}
}

// BenchmarkReadAll compares reading a create's body with io.ReadAll and
// with readAll told its Content-Length.
//
//	go test -run NONE -bench ReadAll -benchmem ./engine/httpapi/
func BenchmarkReadAll(b *testing.B) {
	body := []byte(strings.Repeat("x", 1300))
	b.Run("io.ReadAll", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := io.ReadAll(bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("readAll", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readAll(bytes.NewReader(body), int64(len(body))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
