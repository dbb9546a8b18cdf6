package admissionpolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
)

// configError is a policy or binding that cannot be applied: its
// failurePolicy (Fail unless set) decides whether it denies.
func (d *validation) configError(err error, p *v1.ValidatingAdmissionPolicy, b *v1.ValidatingAdmissionPolicyBinding) {
	policy := v1.Fail
	if p.Spec.FailurePolicy != nil {
		policy = *p.Spec.FailurePolicy
	}
	var message string
	switch {
	case policy == v1.Ignore:
		return
	case policy != v1.Fail:
		message = fmt.Sprintf("unrecognized failure policy: '%v'", policy)
	case b == nil:
		message = fmt.Errorf("failed to configure policy: %w", err).Error()
	default:
		message = fmt.Errorf("failed to configure binding: %w", err).Error()
	}
	d.denied = append(d.denied, decision{PolicyDecision: validating.PolicyDecision{Action: validating.ActionDeny, Message: message}, policy: p, binding: b})
}

// record applies a binding's validationActions to the policy's decisions
// and collects its audit annotations, as kube's dispatcher does.
func (d *validation) record(res validating.ValidateResult, p *v1.ValidatingAdmissionPolicy, b *v1.ValidatingAdmissionPolicyBinding, annotations annotationCollector) error {
	for i, dec := range res.Decisions {
		switch dec.Action {
		case validating.ActionAdmit:
		case validating.ActionDeny:
			d.act(i, dec, p, b)
		default:
			return fmt.Errorf("unrecognized evaluation decision '%s' for ValidatingAdmissionPolicyBinding '%s' with ValidatingAdmissionPolicy '%s'", dec.Action, b.Name, p.Name)
		}
	}
	for _, a := range res.AuditAnnotations {
		switch a.Action {
		case validating.AuditAnnotationActionPublish:
			annotations.add(a.Key, truncate(a.Value, maxAuditAnnotationValueLength))
		case validating.AuditAnnotationActionError:
			d.denied = append(d.denied, decision{PolicyDecision: validating.PolicyDecision{Action: validating.ActionDeny, Evaluation: validating.EvalError, Message: a.Error}, policy: p, binding: b})
		case validating.AuditAnnotationActionExclude:
		default:
			return fmt.Errorf("unsupported AuditAnnotation Action: %s", a.Action)
		}
	}
	return nil
}

// act applies each of a binding's validationActions to one denial.
func (d *validation) act(i int, dec validating.PolicyDecision, p *v1.ValidatingAdmissionPolicy, b *v1.ValidatingAdmissionPolicyBinding) {
	for _, action := range b.Spec.ValidationActions {
		switch action {
		case v1.Deny:
			d.denied = append(d.denied, decision{PolicyDecision: dec, policy: p, binding: b})
		case v1.Audit:
			d.failures = append(d.failures, validating.ValidationFailureValue{ExpressionIndex: i, Message: dec.Message,
				ValidationActions: b.Spec.ValidationActions, Binding: b.Name, Policy: b.Spec.PolicyName})
		case v1.Warn:
			d.result.Warnings = append(d.result.Warnings,
				fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.Name, b.Name, dec.Message))
		}
	}
}

// Kube's limits on audit annotations.
const (
	maxAuditAnnotationValueLength = 10 * 1024
	maxValidationFailures         = 50
)

// failureAnnotation is the audit annotation Audit's failures go to.
const failureAnnotation = "validation.policy.admission.k8s.io/validation_failure"

func (d *validation) publishFailures() {
	failures := d.failures
	if len(failures) == 0 {
		return
	}
	if len(failures) > maxValidationFailures {
		failures = failures[:maxValidationFailures]
	}
	value, err := json.Marshal(failures)
	if err != nil {
		return // kube logs and drops it too; these values always marshal
	}
	d.result.annotate(failureAnnotation, string(value))
}

// denial is kube's error for the first denial: admission's Forbidden
// message, with the decision's reason (Invalid unless set) and its code.
func (d *validation) denial() error {
	if len(d.denied) == 0 {
		return nil
	}
	first := d.denied[0]
	message := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", first.policy.Name, first.Message)
	if first.binding != nil {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", first.policy.Name, first.binding.Name, first.Message)
	}
	var err *apierrors.StatusError
	if !errors.As(admission.NewForbidden(d.attrs, errors.New(message)), &err) {
		return apierrors.NewInternalError(errors.New(message))
	}
	reason := first.Reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason = reason
	err.ErrStatus.Code = reasonToCode(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return err
}

// reasonToCode is kube's (validating.reasonToCode, unexported there).
func reasonToCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	case metav1.StatusReasonInvalid:
		return http.StatusUnprocessableEntity
	}
	return http.StatusUnprocessableEntity
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// annotationCollector gathers one policy's audit annotations over its
// bindings: distinct values of one key are joined with ", ".
type annotationCollector map[string][]string

func newAnnotationCollector() annotationCollector { return annotationCollector{} }

func (a annotationCollector) add(key, value string) {
	for _, v := range a[key] {
		if v == value {
			return
		}
	}
	a[key] = append(a[key], value)
}

// publish adds the annotations as "<policy>/<key>".
func (a annotationCollector) publish(policy string, r *Result) {
	for key, values := range a {
		r.annotate(policy+"/"+key, strings.Join(values, ", "))
	}
}
