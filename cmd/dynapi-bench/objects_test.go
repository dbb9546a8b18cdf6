package main

import "testing"

func TestWidgetSize(t *testing.T) {
	for _, size := range []int{minSize, 1200, 5000} {
		w := newWidgets("bench-12345678", size)
		if got := len(w.body(99999, 0, "")); got < size-5 || got > size+70 {
			t.Errorf("size %d: body is %d bytes", size, got)
		}
	}
}
