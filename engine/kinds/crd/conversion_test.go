package crd

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/tidwall/sjson"
)

// TestCheckConversion: spec.conversion is checked as kube-apiserver checks
// it, with its field paths and words.
func TestCheckConversion(t *testing.T) {
	t.Parallel()
	established := `{"conditions":[{"type":"Established","status":"True"}]}`
	badBundle := base64.StdEncoding.EncodeToString([]byte("not a certificate"))
	tests := []struct {
		name       string
		conversion string
		old        string // the status of the definition replaced, "" on create
		want       string
	}{
		{"none", `{"strategy":"None"}`, "", "[]"},
		{"webhook by url", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://127.0.0.1:9443/convert"}}}`, "", "[]"},
		{"unknown strategy", `{"strategy":"Magic"}`, "",
			`[{FieldValueNotSupported spec.conversion.strategy Unsupported value: "Magic": supported values: "None", "Webhook"}]`},
		{"no client config", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"]}}`, "",
			`[{FieldValueRequired spec.conversion.webhookClientConfig Required value: required when strategy is set to Webhook}]`},
		{"url and service", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a/","service":{"namespace":"n","name":"s"}}}}`, "",
			`[{FieldValueRequired spec.conversion.webhookClientConfig Required value: exactly one of url or service is required}]`},
		{"http url", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"http://a/convert"}}}`, "",
			`[{FieldValueInvalid spec.conversion.webhookClientConfig.url Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]}]`},
		{"no review version", `{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://a/convert"}}}`, "",
			`[{FieldValueRequired spec.conversion.conversionReviewVersions Required value}]`},
		{"unknown review versions", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v2","v2"],"clientConfig":{"url":"https://a/convert"}}}`, "",
			`[{FieldValueInvalid spec.conversion.conversionReviewVersions[1] Invalid value: "v2": duplicate version} {FieldValueInvalid spec.conversion.conversionReviewVersions Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1}]`},
		{"webhook with strategy None", `{"strategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a/convert"}}}`, "",
			`[{FieldValueForbidden spec.conversion.webhookClientConfig Forbidden: should not be set when strategy is not set to Webhook} {FieldValueForbidden spec.conversion.conversionReviewVersions Forbidden: should not be set when strategy is not set to Webhook}]`},
		{"bad caBundle on create", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a/convert","caBundle":"` + badBundle + `"}}}`, "", "[]"},
		{"bad caBundle on update", `{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://a/convert","caBundle":"` + badBundle + `"}}}`, established,
			`[{FieldValueInvalid spec.conversion.webhookClientConfig.caBundle Invalid value: "bm90IGEgY2VydGlmaWNhdGU=": unable to load root certificates: unable to parse bytes as PEM block}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj, err := sjson.SetRawBytes(crdJSON("stable.example.com", "crontabs", "CronTab", "ct"), "spec.conversion", []byte(tt.conversion))
			if err != nil {
				t.Fatal(err)
			}
			var old []byte
			if tt.old != "" {
				if old, err = sjson.SetRawBytes(crdJSON("stable.example.com", "crontabs", "CronTab", "ct"), "status", []byte(tt.old)); err != nil {
					t.Fatal(err)
				}
			}
			if got := fmt.Sprint(checkConversion(obj, old)); got != tt.want {
				t.Errorf("checkConversion =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
