package connlimit

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	tests := []struct {
		nofile uint64
		want   int
	}{
		{nofile: 1024, want: 1024 - 128 - Reserve},
		{nofile: 20000, want: 20000 - 2000 - Reserve},
		{nofile: 100, want: 1},
		{nofile: ^uint64(0), want: 1<<30 - (1<<30)/10 - Reserve},
	}
	for _, tt := range tests {
		if got := limitFor(tt.nofile); got != tt.want {
			t.Errorf("limitFor(%d) = %d, want %d", tt.nofile, got, tt.want)
		}
	}
}

// accepted is what the server side of one connection turned out to be.
type accepted struct {
	conn     net.Conn
	reserved bool
}

// Two connections are served, the third is a reserve one, the fourth is
// closed at accept; closing one gives its place to the next.
func TestListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(inner, 2, 1, Options{})
	t.Cleanup(func() { l.Close() })
	conns := make(chan accepted)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- accepted{c, Reserved(ConnContext(context.Background(), c))}
		}
	}()
	var clients []net.Conn
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		clients = append(clients, c)
		return c
	}
	var served []accepted
	for i, wantReserved := range []bool{false, false, true} {
		dial()
		a := <-conns
		if a.reserved != wantReserved {
			t.Errorf("connection %d: reserved %v, want %v", i, a.reserved, wantReserved)
		}
		served = append(served, a)
	}
	over := dial()
	_ = over.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := over.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("a connection over limit and reserve: read = %v, want EOF (closed at accept)", err)
	}
	served[0].conn.Close()
	served[0].conn.Close() // twice: the place is given back once
	dial()
	if a := <-conns; !a.reserved {
		t.Error("after one closed, the next is not a reserve connection but the open ones are still over the limit")
	}
	served[1].conn.Close()
	served[2].conn.Close()
	dial()
	if a := <-conns; a.reserved {
		t.Error("with places free, a new connection is a reserve one")
	}
}
