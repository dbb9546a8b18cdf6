package conversionwebhook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
	"github.com/dynapi/dynapi/engine/webhook"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// thingV1 is an object of the test kind in v1, as stored.
const thingV1 = `{"apiVersion":"conv.example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","labels":{"app":"x"}},"spec":{"size":3}}`

// webhookFor starts a TLS webhook server with h and returns the kind it
// converts, through a clientConfig url with a caBundle, asking for the
// given review versions.
func webhookFor(t testing.TB, h http.Handler, reviews ...string) (*registry.Resource, *httptest.Server) {
	t.Helper()
	ca := webhooktest.NewCA(t, "test-ca")
	srv := webhooktest.StartTLS(t, ca.Serving(t, nil, net.IPv4(127, 0, 0, 1)), false, h)
	cfg, err := json.Marshal(map[string]any{"url": srv.URL + "/convert", "caBundle": base64.StdEncoding.EncodeToString(ca.PEM)})
	if err != nil {
		t.Fatal(err)
	}
	if len(reviews) == 0 {
		reviews = []string{"v1"}
	}
	return &registry.Resource{Group: "conv.example.com", Kind: "Thing", ListKind: "ThingList",
		Webhook: &registry.ConversionWebhook{CRDName: "things.conv.example.com", ClientConfig: cfg, ReviewVersions: reviews}}, srv
}

// answerOf is the review's response; object i of its convertedObjects.
func answerOf(review map[string]any) map[string]any { return review["response"].(map[string]any) }
func object(review map[string]any, i int) map[string]any {
	return answerOf(review)["convertedObjects"].([]any)[i].(map[string]any)
}

// TestConvertRefusesWhatKubeRefuses: each wrong answer of a webhook is
// refused with kube-apiserver's words, as a 500 with no reason.
func TestConvertRefusesWhatKubeRefuses(t *testing.T) {
	t.Parallel()
	gvk := "conversion webhook for conv.example.com/v1, Kind=Thing"
	list := "conversion webhook for conv.example.com/v1, Kind=ThingList"
	tests := []struct {
		name string
		edit func(map[string]any)
		list bool
		want string // the whole message, or its start when it ends in "…"
	}{
		{"uid", func(r map[string]any) { answerOf(r)["uid"] = "other" }, false, gvk + ` failed: expected response.uid="…`},
		{"kind", func(r map[string]any) { r["kind"] = "AdmissionReview" }, false,
			gvk + " failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=AdmissionReview"},
		{"no response", func(r map[string]any) { delete(r, "response") }, false, gvk + " failed: no response provided"},
		{"failure with a message", func(r map[string]any) {
			answerOf(r)["result"] = map[string]any{"status": "Failure", "message": "cannot convert size"}
		}, false, gvk + " failed: cannot convert size"},
		{"failure", func(r map[string]any) { answerOf(r)["result"] = map[string]any{"status": "Failure"} }, false,
			gvk + " failed: response.result.status was 'Failure', not 'Success'"},
		{"count", func(r map[string]any) { answerOf(r)["convertedObjects"] = []any{} }, false,
			"conversion webhook for conv.example.com/v1, Kind=Thing returned 0 objects, expected 1"},
		{"apiVersion", func(r map[string]any) { object(r, 0)["apiVersion"] = "conv.example.com/v1" }, false,
			gvk + " returned invalid object at index 0: invalid groupVersion (expected conv.example.com/v2, received conv.example.com/v1)"},
		{"kind of the object", func(r map[string]any) { object(r, 0)["kind"] = "Other" }, false,
			gvk + " returned invalid object at index 0: invalid kind (expected Thing, received Other)"},
		{"name", func(r map[string]any) { object(r, 0)["metadata"].(map[string]any)["name"] = "b" }, false,
			gvk + " returned invalid object: must have the same name: a != b"},
		{"uid of the object", func(r map[string]any) { object(r, 0)["metadata"].(map[string]any)["uid"] = "u-2" }, false,
			gvk + " returned invalid object: must have the same UID: u-1 != u-2"},
		// kube checks the name before the metadata is looked at.
		{"no metadata", func(r map[string]any) { delete(object(r, 0), "metadata") }, false,
			gvk + " returned invalid object: must have the same name: a != "},
		{"label not a string", func(r map[string]any) {
			object(r, 0)["metadata"].(map[string]any)["labels"] = map[string]any{"app": 1}
		}, false, gvk + " returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object"},
		{"label key", func(r map[string]any) {
			object(r, 0)["metadata"].(map[string]any)["labels"] = map[string]any{"bad key": "x"}
		}, false, gvk + ` returned invalid metadata: metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{"in a list", func(r map[string]any) { object(r, 0)["metadata"].(map[string]any)["namespace"] = "other" }, true,
			list + " returned invalid converted object at index 0: must have the same namespace: ns != other"},
		{"metadata in a list", func(r map[string]any) { object(r, 0)["metadata"].(map[string]any)["annotations"] = "x" }, true,
			list + " returned invalid metadata in object at index 0: invalid metadata.annotations of type string in converted object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := webhookFor(t, recorded(&webhooktest.Conversion{}, tt.edit))
			c := New(webhook.New(webhook.Options{}), nil)
			_, err := c.Convert(context.Background(), r, [][]byte{[]byte(thingV1)}, "v2", tt.list)
			checkError(t, err, tt.want)
		})
	}
}

// checkError checks err is kube's 500 with no reason and the message want
// (or its start, when want ends in "…").
func checkError(t *testing.T, err error, want string) {
	t.Helper()
	e, ok := err.(*engine.Error)
	if !ok || e.Code != engine.CodeUnknown {
		t.Fatalf("error = %#v; want an *engine.Error with no reason", err)
	}
	if prefix, cut := strings.CutSuffix(want, "…"); cut && strings.HasPrefix(e.Message, prefix) {
		return
	}
	if e.Message != want {
		t.Errorf("message = %q\n         want %q", e.Message, want)
	}
}

// TestConvertDown: a webhook that does not answer is kube's error, which
// quotes the call with its 30 s timeout.
func TestConvertDown(t *testing.T) {
	t.Parallel()
	r, srv := webhookFor(t, &webhooktest.Conversion{})
	srv.Close()
	c := New(webhook.New(webhook.Options{}), nil)
	_, err := c.Convert(context.Background(), r, [][]byte{[]byte(thingV1)}, "v2", false)
	host := strings.TrimPrefix(srv.URL, "https://")
	checkError(t, err, fmt.Sprintf(`conversion webhook for conv.example.com/v1, Kind=Thing failed: Post "https://%s/convert?timeout=30s": dial tcp %s: connect: connection refused`, host, host))
}

// TestConvert: the objects not in the desired version go to the webhook in
// one review of the first version kube knows, and come back with their
// metadata restored but for labels and annotations; none, no call.
func TestConvert(t *testing.T) {
	t.Parallel()
	thingV2 := `{"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"b","namespace":"ns"},"spec":{"dimensions":{"size":4}}}`
	tests := []struct {
		name    string
		reviews []string
		objs    []string
		want    []string
		calls   []webhooktest.Call
	}{
		{"one object", []string{"v1"}, []string{thingV1}, []string{
			`{"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","labels":{"app":"x","converted":"yes"}},"spec":{"dimensions":{"size":3}}}`},
			[]webhooktest.Call{{Review: "apiextensions.k8s.io/v1", Path: "/convert", Query: "timeout=30s", Desired: "conv.example.com/v2", Objects: 1}}},
		{"only those not in the version, in one call", []string{"v2", "v1beta1", "v1"}, []string{thingV1, thingV2, thingV1}, []string{
			`{"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","labels":{"app":"x","converted":"yes"}},"spec":{"dimensions":{"size":3}}}`,
			thingV2,
			`{"apiVersion":"conv.example.com/v2","kind":"Thing","metadata":{"name":"a","namespace":"ns","uid":"u-1","resourceVersion":"7","labels":{"app":"x","converted":"yes"}},"spec":{"dimensions":{"size":3}}}`},
			[]webhooktest.Call{{Review: "apiextensions.k8s.io/v1beta1", Path: "/convert", Query: "timeout=30s", Desired: "conv.example.com/v2", Objects: 2}}},
		{"nothing to convert", []string{"v1"}, []string{thingV2}, []string{thingV2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook := &webhooktest.Conversion{}
			// The webhook also tries to change what it may not (the
			// resourceVersion) and what it may (a label).
			r, _ := webhookFor(t, recorded(hook, func(review map[string]any) {
				for _, o := range answerOf(review)["convertedObjects"].([]any) {
					m := o.(map[string]any)["metadata"].(map[string]any)
					m["resourceVersion"] = "99"
					if labels, ok := m["labels"].(map[string]any); ok {
						labels["converted"] = "yes"
					}
				}
			}), tt.reviews...)
			objs := make([][]byte, len(tt.objs))
			for i, o := range tt.objs {
				objs[i] = []byte(o)
			}
			got, err := New(webhook.New(webhook.Options{}), nil).Convert(context.Background(), r, objs, "v2", true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if !jsoneq.Equal(got[i], []byte(tt.want[i])) {
					t.Errorf("object %d = %s\n want %s", i, got[i], tt.want[i])
				}
			}
			if calls := hook.Calls(); fmt.Sprint(calls) != fmt.Sprint(tt.calls) {
				t.Errorf("calls = %+v; want %+v", calls, tt.calls)
			}
		})
	}
}

// recorded is a webhook that converts with hook, then lets edit change
// its answer (the parsed ConversionReview).
func recorded(hook *webhooktest.Conversion, edit func(map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, r)
		var review map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		edit(review)
		_ = json.NewEncoder(w).Encode(review)
	})
}

// TestConvertMetrics: every call is in kube's conversion metrics, with
// the definition's name, the versions and whether it succeeded.
func TestConvertMetrics(t *testing.T) {
	t.Parallel()
	r, srv := webhookFor(t, &webhooktest.Conversion{})
	reg := prometheus.NewRegistry()
	c := New(webhook.New(webhook.Options{}), reg)
	if _, err := c.Convert(context.Background(), r, [][]byte{[]byte(thingV1)}, "v2", false); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := c.Convert(context.Background(), r, [][]byte{[]byte(thingV1)}, "v2", false); err == nil {
		t.Fatal("a webhook that is down converted")
	}
	want := `
# HELP apiserver_conversion_webhook_request_total Counter for conversion webhook requests with success/failure and failure error type
# TYPE apiserver_conversion_webhook_request_total counter
apiserver_conversion_webhook_request_total{failure_type="",result="success"} 1
apiserver_conversion_webhook_request_total{failure_type="conversion_webhook_call_failure",result="failure"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_conversion_webhook_request_total"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var series []string
	for _, f := range families {
		if f.GetName() != "apiserver_crd_conversion_webhook_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			series = append(series, fmt.Sprint(labels, " ", m.GetHistogram().GetSampleCount()))
		}
	}
	want = fmt.Sprint([]string{
		"map[crd_name:things.conv.example.com from_version:v1 succeeded:false to_version:v2] 1",
		"map[crd_name:things.conv.example.com from_version:v1 succeeded:true to_version:v2] 1"})
	if fmt.Sprint(series) != want {
		t.Errorf("apiserver_crd_conversion_webhook_duration_seconds = %v; want %v", series, want)
	}
}
