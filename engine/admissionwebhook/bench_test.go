package admissionwebhook_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/admissionwebhook"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/engine/webhook"
	"github.com/dynapi/dynapi/internal/wait"
)

// BenchmarkWebhookCreate measures a create of a Widget through the
// pipeline into PostgreSQL (no HTTP in front), with no webhook
// configured, and with one validating or one mutating webhook (a program
// over TLS on loopback that allows everything) matching every create.
func BenchmarkWebhookCreate(b *testing.B) {
	for _, kind := range []string{"none", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		b.Run("webhook="+kind, func(b *testing.B) {
			kit := servicetest.Open(b, "ns")
			t := benchTarget(b, kit, "shop.example.com", "v1", "widgets")
			t.Namespace = "ns"
			benchAdmission(b, kit, kind)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				if _, err := kit.Service.Create(ctx, t, []byte(widget(fmt.Sprintf("w%d", i), `"size":1`)), resource.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// benchAdmission gives kit's service the webhook plug-ins, following the
// configurations stored, with one of kind (none for "none") in force.
func benchAdmission(b *testing.B, kit servicetest.Kit, kind string) {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	index := admissionwebhook.NewIndex(kit.Service, kit, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	client := webhook.New(webhook.Options{})
	mutating, validating := index.Mutating(client), index.Validating(client)
	kit.Service.SetAdmission(&admission.Chain{Mutators: []admission.Mutator{mutating}, Validators: []admission.Validator{validating}})
	go index.Run(ctx)
	if err := index.WaitSynced(ctx); err != nil {
		b.Fatal(err)
	}
	if kind == "none" {
		return
	}
	h := serveHook(b, allow)
	res := "validatingwebhookconfigurations"
	active := validating.Active
	if kind == "MutatingWebhookConfiguration" {
		res, active = "mutatingwebhookconfigurations", mutating.Active
	}
	cfg := config(kind, "bench.example.com", urlConfig(h, ""), widgetRules)
	t := benchTarget(b, kit, "admissionregistration.k8s.io", "v1", res)
	if _, err := kit.Service.Create(ctx, t, []byte(cfg), resource.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	wait.Eventually(b, 30*time.Second, func() (bool, string) { return active(), "the configuration in force" })
}

func benchTarget(tb testing.TB, kit servicetest.Kit, group, version, res string) resource.Target {
	r, v, ok := kit.Snapshot.Lookup(group, version, res)
	if !ok {
		tb.Fatalf("%s not served", res)
	}
	return resource.Target{Resource: r, Version: v}
}
