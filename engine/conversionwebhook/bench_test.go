package conversionwebhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
	"github.com/dynapi/dynapi/engine/webhook"
)

// BenchmarkConvertPage measures one call per list page: a page of n
// objects of about 1 KB, converted by a webhook over TLS on loopback
// (encoding, the call, the webhook's own work, the checks).
func BenchmarkConvertPage(b *testing.B) {
	for _, n := range []int{1, 100, 500} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			r, _ := webhookFor(b, &webhooktest.Conversion{})
			c := New(webhook.New(webhook.Options{}), nil)
			obj := strings.Replace(thingV1, `"size":3`, `"size":3,"notes":"`+strings.Repeat("x", 800)+`"`, 1)
			page := make([][]byte, n)
			for i := range page {
				page[i] = []byte(obj)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := c.Convert(context.Background(), r, page, "v2", true); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/object")
		})
	}
}
