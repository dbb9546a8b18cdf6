package postgres_test

import (
	"testing"

	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkPosition compares the two ways a read can take the primary's
// position under 16 concurrent readers: one query per read, or one query
// shared by the reads that begin together (what the Store does). Both are
// taken after the read began; the figure is time per read and the
// primary's queries per read.
func BenchmarkPosition(b *testing.B) {
	reg := prometheus.NewRegistry()
	s := openStoreWith(b, pgtest.Open(b), postgres.Options{Metrics: reg})
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "per read", true: "shared"}[shared]
		b.Run(name, func(b *testing.B) {
			before := positionQueries(b, reg)
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := postgres.TakePosition(b.Context(), s, shared); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if shared {
				b.ReportMetric((positionQueries(b, reg)-before)/float64(b.N), "queries/read")
			}
		})
	}
}

// positionQueries is the Store's count of shared position queries.
func positionQueries(b *testing.B, reg *prometheus.Registry) float64 {
	b.Helper()
	return counters(b, reg, "dynapi_storage_position_queries_total")[""]
}
