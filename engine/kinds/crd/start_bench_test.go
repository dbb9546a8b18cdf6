package crd_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// BenchmarkStartWithFiles starts a control plane on 1,000 definition
// files of ~7 KB (testdata/gadget.json, two versions each, no two with
// one schema), until Start returns (/readyz answers then): first on an
// empty database, where each file's kind is published, then again once
// they are. cpu-s/op is the CPU the process used meanwhile, which the
// machine's other work does not change as it changes ns/op.
//
//	go test -run '^$' -bench StartWithFiles -benchtime 3x ./engine/kinds/crd/
func BenchmarkStartWithFiles(b *testing.B) {
	const kinds = 1000
	dir := writeGadgets(b, kinds)
	b.Run(fmt.Sprintf("first/files=%d", kinds), func(b *testing.B) {
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			db := pgtest.Open(b)
			b.StartTimer()
			cpu += startOnce(b, db, dir)
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run(fmt.Sprintf("again/files=%d", kinds), func(b *testing.B) {
		db := pgtest.Open(b)
		startOnce(b, db, dir)
		var cpu time.Duration
		for b.Loop() {
			cpu += startOnce(b, db, dir)
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	})
}

// startOnce starts a control plane on the database at dbURL serving the
// definition files in dir, closes it (untimed), and returns the CPU time
// Start took.
func startOnce(b *testing.B, dbURL, dir string) time.Duration {
	b.Helper()
	ctx := context.Background()
	b.StopTimer()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	before := cpuTime(b)
	b.StartTimer()
	cp, err := controlplane.Start(ctx, controlplane.Config{
		Service: resource.New(store), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Files: &controlplane.Files{Schemas: dir},
		HTTP:  httpapi.Options{Ready: store.Ping},
	})
	b.StopTimer()
	used := cpuTime(b) - before
	if err != nil {
		b.Fatal(err)
	}
	if err := cp.Close(); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return used
}

// writeGadgets writes n definition files made from testdata/gadget.json,
// each of its own group (ten kinds a group, as operators ship them), kind
// and schemas (the kind's name is in each field's description), and
// returns their folder.
func writeGadgets(b *testing.B, n int) string {
	b.Helper()
	template, err := os.ReadFile("testdata/gadget.json")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i := range n {
		group := fmt.Sprintf("g%d.bench.example.com", i/10)
		file := strings.NewReplacer("GROUP", group, "PLURAL", fmt.Sprintf("gadget%ds", i),
			"SINGULAR", fmt.Sprintf("gadget%d", i), "KIND", fmt.Sprintf("Gadget%d", i)).Replace(string(template))
		path := filepath.Join(dir, group, fmt.Sprintf("gadget%d.json", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// cpuTime is the CPU time the process used so far (user and system).
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
