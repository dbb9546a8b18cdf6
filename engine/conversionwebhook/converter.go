package conversionwebhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/webhook"
)

// Converter converts objects by their definition's conversion webhook. It
// is safe for concurrent use.
type Converter struct {
	client  *webhook.Client
	metrics *metrics
}

// New returns a Converter that calls webhooks through client and registers
// kube's conversion metrics with reg, when not nil (a second registration
// with the same reg panics).
func New(client *webhook.Client, reg prometheus.Registerer) *Converter {
	return &Converter{client: client, metrics: newMetrics(reg)}
}

// Convert returns objs, objects of r (JSON, each in the version its
// apiVersion names), in version to, in their order: those not in it already
// are converted by one call to r's webhook; when all are, nothing is
// called. list says whether objs are the items of a list (a list page, a
// batch of watch events), which kube's errors word apart. Errors:
// CodeUnknown (kube's 500 with no reason) in kube's words, for a call that
// failed or a response that is refused.
func (c *Converter) Convert(ctx context.Context, r *registry.Resource, objs [][]byte, to string, list bool) ([][]byte, error) {
	desired := apiVersion(r.Group, to)
	var pending []int
	for i, o := range objs {
		if gjson.GetBytes(o, "apiVersion").String() != desired {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return objs, nil
	}
	call := newCall(r, objs, pending, desired, list)
	start := time.Now()
	out, failure, err := call.run(ctx, c.client)
	c.metrics.observe(r.Webhook.CRDName, call.fromVersion(), to, time.Since(start), failure)
	if err != nil {
		return nil, &engine.Error{Code: engine.CodeUnknown, Message: err.Error()}
	}
	return out, nil
}

// call is one call to a webhook, for the objects at pending.
type call struct {
	hook    *registry.ConversionWebhook
	gvk     string // the input's group/version and kind, in kube's errors
	list    bool
	desired string
	objs    [][]byte
	pending []int
}

// newCall prepares the call for the objects at pending; kube names a list
// by its list kind in its errors.
func newCall(r *registry.Resource, objs [][]byte, pending []int, desired string, list bool) *call {
	from := gjson.GetBytes(objs[pending[0]], "apiVersion").String()
	kind := r.Kind
	if list {
		kind = r.ListKind
	}
	return &call{hook: r.Webhook, gvk: gvkString(from, kind), list: list, desired: desired,
		objs: objs, pending: pending}
}

// fromVersion is the version the converted objects came from, as kube's
// metrics label it: the first one's.
func (k *call) fromVersion() string {
	_, v := splitAPIVersion(gjson.GetBytes(k.objs[k.pending[0]], "apiVersion").String())
	return v
}

// run makes the call and checks its answer; on failure it returns kube's
// failure type and error.
func (k *call) run(ctx context.Context, client *webhook.Client) ([][]byte, string, error) {
	version, err := reviewVersion(k.hook.ReviewVersions)
	if err != nil {
		return nil, failCall, err
	}
	uid := meta.NewUID()
	answer, err := k.post(ctx, client, k.request(version, uid))
	if err != nil {
		return nil, failCall, k.failed(err)
	}
	if !gjson.ValidBytes(answer) {
		return nil, failCall, k.failed(syntaxError(answer)) // kube's client fails to decode it
	}
	converted, err := convertedObjects(version, uid, answer)
	if err != nil {
		return nil, failMalformed, k.failed(err)
	}
	if len(converted) != len(k.pending) {
		return nil, failPartial, fmt.Errorf("conversion webhook for %s returned %d objects, expected %d",
			k.gvk, len(converted), len(k.pending))
	}
	return k.merge(converted)
}

// request encodes the review of the pending objects.
func (k *call) request(version, uid string) []byte {
	pending := make([][]byte, len(k.pending))
	for i, at := range k.pending {
		pending[i] = k.objs[at]
	}
	return encodeRequest(version, uid, k.desired, pending)
}

// post calls the webhook; its error is the bare failure kube quotes.
func (k *call) post(ctx context.Context, client *webhook.Client, body []byte) ([]byte, error) {
	cfg, err := clientConfig(k.hook.ClientConfig)
	if err != nil {
		return nil, err
	}
	answer, err := client.Call(ctx, webhook.Request{Name: "conversion_webhook_for_" + k.hook.CRDName,
		Type: "conversion", Config: cfg, Body: body, Timeout: webhook.MaxTimeout})
	var failed *webhook.ErrCallingWebhook
	if errors.As(err, &failed) && failed.Err != nil {
		return nil, failed.Err
	}
	return answer, err
}

// clientConfig reads a definition's clientConfig.
func clientConfig(raw json.RawMessage) (webhook.ClientConfig, error) {
	var cfg webhook.ClientConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("clientConfig: %w", err)
	}
	return cfg, nil
}

// failed is kube's error for a call that failed or was answered wrongly.
func (k *call) failed(err error) error {
	return fmt.Errorf("conversion webhook for %s failed: %v", k.gvk, err)
}

// apiVersion is group/version, or version for the core group.
func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}
