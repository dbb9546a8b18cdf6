package admissionwebhook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/dynapi/dynapi/engine/schema/cel"
	"github.com/dynapi/dynapi/engine/webhook"
)

// Group is the API group of the webhook configurations.
const Group = "admissionregistration.k8s.io"

// hook is one webhook of a configuration, compiled, with kube's defaults
// applied (the strategy stores them; a configuration stored otherwise
// still gets them).
type hook struct {
	admissionregistrationv1.MutatingWebhook // a validating one has no reinvocationPolicy
	mutating                                bool
	config                                  string // the configuration's name
	// uid names the webhook within the snapshot, for reinvocation.
	uid            string
	client         webhook.ClientConfig
	nsSel, objSel  labels.Selector
	selectorErr    error           // a selector that does not parse: the webhook fails
	conditions     *cel.Conditions // nil: no matchConditions
	timeout        time.Duration
	reviewVersions []string
}

// configuration is the part of a webhook configuration read here; both
// kinds decode into it (MutatingWebhook holds every field of a
// ValidatingWebhook).
type configuration struct {
	Metadata metav1.ObjectMeta                         `json:"metadata"`
	Webhooks []admissionregistrationv1.MutatingWebhook `json:"webhooks"`
}

// compileConfig compiles the webhooks of one stored configuration.
func compileConfig(body []byte, mutating bool) ([]*hook, error) {
	var c configuration
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("decode webhook configuration: %w", err)
	}
	hooks := make([]*hook, 0, len(c.Webhooks))
	for i := range c.Webhooks {
		h := &hook{MutatingWebhook: c.Webhooks[i], mutating: mutating, config: c.Metadata.Name,
			uid: fmt.Sprintf("%s/%s/%d", c.Metadata.Name, c.Webhooks[i].Name, i)}
		h.compile()
		hooks = append(hooks, h)
	}
	return hooks, nil
}

// compile applies kube's defaults and builds what each call needs.
func (h *hook) compile() {
	Default(&h.MutatingWebhook)
	if !h.mutating {
		h.ReinvocationPolicy = nil
	}
	h.client = clientConfig(h.ClientConfig)
	var err1, err2 error
	h.nsSel, err1 = metav1.LabelSelectorAsSelector(h.NamespaceSelector)
	h.objSel, err2 = metav1.LabelSelectorAsSelector(h.ObjectSelector)
	h.selectorErr = firstErr(err1, err2)
	if len(h.MatchConditions) > 0 {
		h.conditions = cel.CompileConditions(h.MatchConditions, h.FailurePolicy, h.callType(), h.Name)
	}
	h.timeout = time.Duration(*h.TimeoutSeconds) * time.Second
	h.reviewVersions = slices.Clone(h.AdmissionReviewVersions)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// callType is the metrics' type label of the webhook's calls, kube's.
func (h *hook) callType() string {
	if h.mutating {
		return "admit"
	}
	return "validating"
}

// failOpen says a failed call is ignored (failurePolicy Ignore).
func (h *hook) failOpen() bool {
	return *h.FailurePolicy == admissionregistrationv1.Ignore
}

// reinvocable says the webhook runs again when a later one changed the
// object (reinvocationPolicy IfNeeded).
func (h *hook) reinvocable() bool {
	return h.ReinvocationPolicy != nil && *h.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
}

// Default applies kube's defaults to a webhook (SetDefaults_MutatingWebhook,
// SetDefaults_Rule, SetDefaults_ServiceReference); the validating kind's
// are the same but reinvocationPolicy, which the caller drops.
func Default(w *admissionregistrationv1.MutatingWebhook) {
	if w.FailurePolicy == nil {
		w.FailurePolicy = ptr(admissionregistrationv1.Fail)
	}
	if w.MatchPolicy == nil {
		w.MatchPolicy = ptr(admissionregistrationv1.Equivalent)
	}
	if w.NamespaceSelector == nil {
		w.NamespaceSelector = &metav1.LabelSelector{}
	}
	if w.ObjectSelector == nil {
		w.ObjectSelector = &metav1.LabelSelector{}
	}
	if w.TimeoutSeconds == nil {
		w.TimeoutSeconds = ptr(int32(10))
	}
	if w.ReinvocationPolicy == nil {
		w.ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
	}
	for i := range w.Rules {
		if w.Rules[i].Scope == nil {
			w.Rules[i].Scope = ptr(admissionregistrationv1.AllScopes)
		}
	}
	if s := w.ClientConfig.Service; s != nil && s.Port == nil {
		s.Port = ptr(int32(webhook.DefaultServicePort))
	}
}

func ptr[T any](v T) *T { return &v }

// clientConfig is the webhook client's form of c.
func clientConfig(c admissionregistrationv1.WebhookClientConfig) webhook.ClientConfig {
	out := webhook.ClientConfig{URL: c.URL, CABundle: c.CABundle}
	if s := c.Service; s != nil {
		out.Service = &webhook.ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: s.Port}
	}
	return out
}

// exempt says a resource is never sent to webhooks: the admission
// configurations and policies themselves, as kube exempts them.
func exempt(group, kind string) bool {
	return group == Group && (strings.HasSuffix(kind, "WebhookConfiguration") ||
		strings.Contains(kind, "AdmissionPolicy"))
}
