package webhookconfiguration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/webhook"
)

// options are kube's validationOptions that an update may relax.
type options struct {
	noSideEffects, recognizedVersion, uniqueNames bool
	// stored are the matchConditions' expressions the stored object has:
	// compiled as stored expressions.
	stored sets.Set[string]
}

// strict are the options of a create.
var strict = options{noSideEffects: true, recognizedVersion: true, uniqueNames: true}

// ratcheted are the options of an update of old: a rule old breaks
// already is not enforced, as kube's ValidateWebhookConfigurationUpdate.
func ratcheted(old []admissionregistrationv1.MutatingWebhook) options {
	o := options{noSideEffects: true, recognizedVersion: true, uniqueNames: true, stored: sets.New[string]()}
	names := sets.New[string]()
	for _, h := range old {
		o.noSideEffects = o.noSideEffects && h.SideEffects != nil && noSideEffectClasses.Has(string(*h.SideEffects))
		o.recognizedVersion = o.recognizedVersion && slices.ContainsFunc(h.AdmissionReviewVersions, accepted.Has)
		o.uniqueNames = o.uniqueNames && !names.Has(h.Name)
		names.Insert(h.Name)
		for _, c := range h.MatchConditions {
			o.stored.Insert(c.Expression)
		}
	}
	return o
}

var (
	accepted                = sets.New("v1", "v1beta1") // kube's AcceptedAdmissionReviewVersions
	failurePolicies         = sets.New("Fail", "Ignore")
	matchPolicies           = sets.New("Equivalent", "Exact")
	sideEffectClasses       = sets.New("None", "NoneOnDryRun", "Some", "Unknown")
	noSideEffectClasses     = sets.New("None", "NoneOnDryRun")
	operations              = sets.New("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
	scopes                  = sets.New("*", "Cluster", "Namespaced")
	reinvocationPolicies    = sets.New("IfNeeded", "Never")
	acceptedVersionsMessage = strings.Join(sets.List(accepted), ", ")
)

// validate is kube's validateValidatingWebhookConfiguration and
// validateMutatingWebhookConfiguration, but metadata (the pipeline's).
func validate(hooks []admissionregistrationv1.MutatingWebhook, mutating bool, o options) []engine.FieldError {
	var errs field.ErrorList
	var clientErrs []engine.FieldError
	names := sets.New[string]()
	for i := range hooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&hooks[i], mutating, o, p)...)
		clientErrs = append(clientErrs, clientConfigErrors(hooks[i].ClientConfig, p.Child("clientConfig"))...)
		errs = append(errs, validateReviewVersions(hooks[i].AdmissionReviewVersions, o.recognizedVersion, p.Child("admissionReviewVersions"))...)
		if name := hooks[i].Name; o.uniqueNames && name != "" {
			if names.Has(name) {
				errs = append(errs, field.Duplicate(p.Child("name"), name))
			}
			names.Insert(name)
		}
	}
	return append(meta.FieldErrors(errs), clientErrs...)
}

// validateWebhook is kube's validateMutatingWebhook (validateValidatingWebhook
// without reinvocationPolicy), but the client config (clientConfigErrors).
func validateWebhook(h *admissionregistrationv1.MutatingWebhook, mutating bool, o options, p *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(p.Child("name"), h.Name)
	for i := range h.Rules {
		errs = append(errs, validateRule(&h.Rules[i], p.Child("rules").Index(i))...)
	}
	errs = append(errs, notSupported(p.Child("failurePolicy"), (*string)(h.FailurePolicy), failurePolicies)...)
	errs = append(errs, notSupported(p.Child("matchPolicy"), (*string)(h.MatchPolicy), matchPolicies)...)
	errs = append(errs, validateSideEffects(h.SideEffects, o, p.Child("sideEffects"))...)
	if t := h.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	selOpts := metav1validation.LabelSelectorValidationOptions{}
	if h.NamespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.NamespaceSelector, selOpts, p.Child("namespaceSelector"))...)
	}
	if h.ObjectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.ObjectSelector, selOpts, p.Child("objectSelector"))...)
	}
	if mutating {
		errs = append(errs, notSupported(p.Child("reinvocationPolicy"), (*string)(h.ReinvocationPolicy), reinvocationPolicies)...)
	}
	return append(errs, validateMatchConditions(h.MatchConditions, o, p.Child("matchConditions"))...)
}

// notSupported is kube's field.NotSupported for a value not in allowed;
// nothing for an absent one.
func notSupported(p *field.Path, v *string, allowed sets.Set[string]) field.ErrorList {
	if v == nil || allowed.Has(*v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, *v, sets.List(allowed))}
}

// validateSideEffects requires sideEffects, None or NoneOnDryRun (any
// class when the stored object had another).
func validateSideEffects(s *admissionregistrationv1.SideEffectClass, o options, p *field.Path) field.ErrorList {
	allowed := sideEffectClasses
	if o.noSideEffects {
		allowed = noSideEffectClasses
	}
	if s == nil {
		return field.ErrorList{field.Required(p, fmt.Sprintf("must specify one of %v", strings.Join(sets.List(allowed), ", ")))}
	}
	return notSupported(p, (*string)(s), allowed)
}

// clientConfigErrors checks the client config with engine/webhook's
// Validate (kube's ValidateWebhookURL and ValidateWebhookService), the
// caBundle left to the call, as kube's validation leaves it.
func clientConfigErrors(c admissionregistrationv1.WebhookClientConfig, p *field.Path) []engine.FieldError {
	cc := webhook.ClientConfig{URL: c.URL}
	if s := c.Service; s != nil {
		cc.Service = &webhook.ServiceReference{Namespace: s.Namespace, Name: s.Name, Path: s.Path, Port: s.Port}
	}
	return cc.Validate(p.String(), false)
}
