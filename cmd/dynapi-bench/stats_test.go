package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", []time.Duration{7}, 99, 7},
		{"p50 of 100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 100", hundred, 100, 100 * time.Millisecond},
		{"p0 is the smallest", hundred, 0, time.Millisecond},
		{"p50 of 4 is the 2nd", []time.Duration{1, 2, 3, 4}, 50, 2},
		{"p99 of 4 is the largest", []time.Duration{1, 2, 3, 4}, 99, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Fatalf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestParallel(t *testing.T) {
	seen := make([]int, 100)
	m := parallel(context.Background(), 7, len(seen), func(_ context.Context, i int) (time.Duration, error) {
		seen[i]++ // each i goes to one worker only
		if i%10 == 0 {
			return 0, errors.New("boom")
		}
		return time.Duration(100 - i), nil
	})
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("op %d ran %d times", i, n)
		}
	}
	if m.Ops != 100 || m.Errors != 10 || len(m.Latencies) != 90 || m.FirstErr == nil {
		t.Fatalf("measurement = %d ops, %d errors, %d latencies, first error %v", m.Ops, m.Errors, len(m.Latencies), m.FirstErr)
	}
	if m.Latencies[0] != 1 || m.Latencies[89] != 99 {
		t.Fatalf("latencies not sorted: first %v, last %v", m.Latencies[0], m.Latencies[89])
	}
}

func TestWriteTable(t *testing.T) {
	us := func(v float64) *float64 { return &v }
	raw := measurement{Ops: 100, Elapsed: time.Second / 4, Latencies: []time.Duration{time.Millisecond},
		CPU: &cpuUse{ToolUs: us(12), PostgresUs: us(34), TotalUs: 46}}
	cpu := &cpuUse{ToolUs: us(111), DynapiUs: us(222), TotalUs: 333}
	r := report{Objects: 100, Clients: 4, Size: 1200, Database: "test",
		Rows: []row{
			{Phase: "create", Clients: 4, Dynapi: measurement{Ops: 100, Elapsed: time.Second, Latencies: []time.Duration{2 * time.Millisecond}, CPU: cpu}, Raw: &raw},
			{Phase: "watch A→B", Clients: 4, Dynapi: measurement{Ops: 100, Elapsed: time.Second, Errors: 1}},
		},
		Memory: []memory{{Server: "A", RSSBytes: 30 << 20, HWMBytes: 40 << 20}}}
	var out bytes.Buffer
	if err := r.writeTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ratio", "create", "2.00ms", "400", "0.25", "watch A→B", "VmRSS 30.0 MiB, VmHWM 40.0 MiB", "failed operations: 1",
		"CPU per operation", "raw postgres", "create  111   222     -         333    12.0      34.0          46.0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
