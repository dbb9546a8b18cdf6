package crd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/webhook"
)

// conversionPath is where kube reports the problems of spec.conversion:
// with the field names of its internal version (webhookClientConfig,
// conversionReviewVersions), as kube-apiserver's messages show them.
var conversionPath = field.NewPath("spec", "conversion")

// reviewVersions are the ConversionReview versions kube speaks.
var reviewVersions = []string{"v1", "v1beta1"}

// checkConversion is kube's validateCustomResourceConversion for a
// definition about to be written (old: the one it replaces, nil on
// create): a known strategy; for Webhook, a client config that can be
// called and a ConversionReview version kube speaks; for None, neither.
func checkConversion(obj, old []byte) []engine.FieldError {
	conv := gjson.GetBytes(obj, "spec.conversion")
	if !conv.Exists() {
		return nil
	}
	strategy := conv.Get("strategy").String()
	switch strategy {
	case "Webhook":
		return checkWebhook(conv.Get("webhook"), old)
	case "None", "":
		return checkNoWebhook(conv.Get("webhook"))
	}
	path := conversionPath.Child("strategy")
	return []engine.FieldError{{Type: engine.CauseNotSupported, Path: path.String(),
		Message: field.NotSupported(path, strategy, []string{"None", "Webhook"}).ErrorBody()}}
}

// checkWebhook checks a Webhook strategy's webhook.
func checkWebhook(hook gjson.Result, old []byte) []engine.FieldError {
	cfgPath := conversionPath.Child("webhookClientConfig")
	var errs []engine.FieldError
	if cc := hook.Get("clientConfig"); !cc.IsObject() {
		errs = append(errs, required(cfgPath, "required when strategy is set to Webhook"))
	} else {
		var cfg webhook.ClientConfig
		if err := json.Unmarshal([]byte(cc.Raw), &cfg); err != nil {
			return append(errs, engine.FieldError{Type: engine.CauseInvalid, Path: cfgPath.String(), Message: err.Error()})
		}
		errs = append(errs, cfg.Validate(cfgPath.String(), !allowInvalidCABundle(old))...)
	}
	return append(errs, checkReviewVersions(hook.Get("conversionReviewVersions"), old)...)
}

// checkNoWebhook refuses a webhook where the strategy names none.
func checkNoWebhook(hook gjson.Result) []engine.FieldError {
	var errs []engine.FieldError
	forbid := func(path *field.Path) {
		errs = append(errs, engine.FieldError{Type: engine.CauseForbidden, Path: path.String(),
			Message: field.Forbidden(path, "should not be set when strategy is not set to Webhook").ErrorBody()})
	}
	if hook.Get("clientConfig").Exists() {
		forbid(conversionPath.Child("webhookClientConfig"))
	}
	if len(hook.Get("conversionReviewVersions").Array()) > 0 {
		forbid(conversionPath.Child("conversionReviewVersions"))
	}
	return errs
}

// checkReviewVersions is kube's validateConversionReviewVersions: one at
// least, no duplicate, each a DNS-1035 label, one of them kube's (unless
// the definition replaced had none of kube's either: kube ratchets it).
func checkReviewVersions(list gjson.Result, old []byte) []engine.FieldError {
	path := conversionPath.Child("conversionReviewVersions")
	var versions []string
	for _, v := range list.Array() {
		versions = append(versions, v.String())
	}
	if len(versions) == 0 {
		return []engine.FieldError{required(path, "")}
	}
	var errs []engine.FieldError
	seen, known := map[string]bool{}, false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, invalidValue(path.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, invalidValue(path.Index(i), v, msg))
		}
		known = known || v == "v1" || v == "v1beta1"
	}
	if !known && requireKnownReviewVersion(old) {
		errs = append(errs, invalidValue(path, versions, fmt.Sprintf("must include at least one of %v", strings.Join(reviewVersions, ", "))))
	}
	return errs
}

// requireKnownReviewVersion is kube's ratchet: an update of a definition
// whose review versions were not kube's may keep them so.
func requireKnownReviewVersion(old []byte) bool {
	if old == nil || !gjson.GetBytes(old, "spec.conversion").Exists() {
		return true
	}
	list := gjson.GetBytes(old, "spec.conversion.webhook.conversionReviewVersions").Array()
	for _, v := range list {
		if s := v.String(); s == "v1" || s == "v1beta1" {
			return true
		}
	}
	return len(list) == 0
}

// allowInvalidCABundle is kube's: a caBundle is not checked on create nor
// while the definition replaced is not established, nor when the one it
// had was itself invalid.
func allowInvalidCABundle(old []byte) bool {
	if old == nil || gjson.GetBytes(old, `status.conditions.#(type=="Established").status`).String() != "True" {
		return true
	}
	var cfg webhook.ClientConfig
	raw := gjson.GetBytes(old, "spec.conversion.webhook.clientConfig").Raw
	if raw == "" || json.Unmarshal([]byte(raw), &cfg) != nil || len(cfg.CABundle) == 0 {
		return false
	}
	return len(cfg.Validate("", true)) > 0
}

// required is field.Required, as a cause.
func required(path *field.Path, detail string) engine.FieldError {
	return engine.FieldError{Type: engine.CauseRequired, Path: path.String(), Message: field.Required(path, detail).ErrorBody()}
}

// invalidValue is field.Invalid, as a cause.
func invalidValue(path *field.Path, value any, detail string) engine.FieldError {
	return engine.FieldError{Type: engine.CauseInvalid, Path: path.String(), Message: field.Invalid(path, value, detail).ErrorBody()}
}
