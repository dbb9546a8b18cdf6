package webhook

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

func ptr[T any](v T) *T { return &v }

// fe is a FieldError, briefly.
func fe(typ, path, message string) engine.FieldError {
	return engine.FieldError{Type: typ, Path: path, Message: message}
}

// TestValidate holds kube's cases (k8s.io/apiserver's validation_test.go and
// the admissionregistration and apiextensions validation tests), with its
// messages and paths.
func TestValidate(t *testing.T) {
	t.Parallel()
	const at = "webhooks[0].clientConfig"
	svc := func(mod func(*ServiceReference)) *ServiceReference {
		s := &ServiceReference{Namespace: "ns", Name: "svc-name"}
		if mod != nil {
			mod(s)
		}
		return s
	}
	tests := []struct {
		name string
		cfg  ClientConfig
		want []engine.FieldError
	}{
		{"url", ClientConfig{URL: ptr("https://example.com:8443/validate")}, nil},
		{"service, defaults", ClientConfig{Service: svc(nil)}, nil},
		{"service, path and port", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("/v1/convert/"); s.Port = ptr[int32](9443) })}, nil},
		{"service, path /", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("/") })}, nil},
		{"neither", ClientConfig{}, []engine.FieldError{
			fe(engine.CauseRequired, at, "Required value: exactly one of url or service is required")}},
		{"both", ClientConfig{URL: ptr("https://example.com"), Service: svc(nil)}, []engine.FieldError{
			fe(engine.CauseRequired, at, "Required value: exactly one of url or service is required")}},
		{"http", ClientConfig{URL: ptr("http://example.com/")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`)}},
		{"no host", ClientConfig{URL: ptr("https:///path")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "": host must be specified; desired format: https://host[/path]`)}},
		{"empty url", ClientConfig{URL: ptr("")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`),
			fe(engine.CauseInvalid, at+".url", `Invalid value: "": host must be specified; desired format: https://host[/path]`)}},
		{"user info", ClientConfig{URL: ptr("https://fred:secret@example.com/")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "fred:secret": user information is not permitted in the URL`)}},
		{"fragment", ClientConfig{URL: ptr("https://example.com/#bookmark")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "bookmark": fragments are not permitted in the URL`)}},
		{"query", ClientConfig{URL: ptr("https://example.com/?arg=value")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".url", `Invalid value: "arg=value": query parameters are not permitted in the URL`)}},
		{"unparsable", ClientConfig{URL: ptr("https://exa mple.com/")}, []engine.FieldError{
			fe(engine.CauseRequired, at+".url", `Required value: url must be a valid URL: parse "https://exa mple.com/": invalid character " " in host name; desired format: https://host[/path]`)}},
		{"service without name and namespace", ClientConfig{Service: &ServiceReference{}}, []engine.FieldError{
			fe(engine.CauseRequired, at+".service.name", "Required value"),
			fe(engine.CauseRequired, at+".service.namespace", "Required value")}},
		{"port 0", ClientConfig{Service: svc(func(s *ServiceReference) { s.Port = ptr[int32](0) })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.port", "Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive")}},
		{"port 65536", ClientConfig{Service: svc(func(s *ServiceReference) { s.Port = ptr[int32](65536) })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.port", "Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive")}},
		{"path //", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("//") })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.path", `Invalid value: "//": segment[0] may not be empty`)}},
		{"path without /", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("foo") })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.path", `Invalid value: "foo": must start with a '/'`)}},
		{"path empty segment", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("/foo//bar/") })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.path", `Invalid value: "/foo//bar/": segment[1] may not be empty`)}},
		{"path segment not a subdomain", ClientConfig{Service: svc(func(s *ServiceReference) { s.Path = ptr("/apis/foo.bar/v1alpha1/--bad") })}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".service.path", `Invalid value: "/apis/foo.bar/v1alpha1/--bad": segment[3]: `+dns1123Message)}},
		{"ca bundle not PEM", ClientConfig{URL: ptr("https://example.com"), CABundle: []byte("foo")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".caBundle", `Invalid value: "Zm9v": unable to load root certificates: unable to parse bytes as PEM block`)}},
		{"ca bundle of no certificate", ClientConfig{URL: ptr("https://example.com"), CABundle: []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")}, []engine.FieldError{
			fe(engine.CauseInvalid, at+".caBundle", `Invalid value: "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCkFBQUEKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=": unable to load root certificates: no valid certificate authority data seen`)}},
		{"ca bundle of white space", ClientConfig{URL: ptr("https://example.com"), CABundle: []byte(" \n")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.cfg.Validate(at, true)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestValidateCABundleRatchet: a caller may skip the bundle's check, as
// kube's CRD validation does while the stored bundle is itself invalid.
func TestValidateCABundleRatchet(t *testing.T) {
	t.Parallel()
	cfg := ClientConfig{URL: ptr("https://example.com"), CABundle: []byte("foo")}
	if errs := cfg.Validate("c", false); len(errs) != 0 {
		t.Errorf("Validate(checkCABundle=false) = %v, want none", errs)
	}
}

// TestValidateGoodCABundle: a real CA's PEM passes.
func TestValidateGoodCABundle(t *testing.T) {
	t.Parallel()
	cfg := ClientConfig{URL: ptr("https://example.com"), CABundle: newTestCA(t, "another CA").pem}
	if errs := cfg.Validate("c", true); len(errs) != 0 {
		t.Errorf("Validate = %v, want none", errs)
	}
	if !strings.Contains(dns1123Message, "regex used for validation") {
		t.Error("dns1123Message lost kube's regex hint")
	}
}
