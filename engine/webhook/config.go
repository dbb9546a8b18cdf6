package webhook

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// DefaultServicePort is the port of a service reference that names none, as
// kube defaults it.
const DefaultServicePort = 443

// ClientConfig says how to reach a webhook, in the shape of kube's
// admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1
// WebhookClientConfig: exactly one of URL and Service, and a CABundle.
type ClientConfig struct {
	// URL is the webhook's address, https://host[:port][/path].
	URL *string `json:"url,omitempty"`
	// Service is a reference to a service, resolved by the Client's
	// ServiceResolver.
	Service *ServiceReference `json:"service,omitempty"`
	// CABundle is a PEM bundle of the CAs that may sign the webhook's
	// serving certificate; empty (or only white space): the system roots.
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference names a service, as kube's ServiceReference does.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	// Port defaults to DefaultServicePort.
	Port *int32 `json:"port,omitempty"`
}

// port is the reference's port, defaulted as kube defaults it.
func (s *ServiceReference) port() int32 {
	if s.Port == nil {
		return DefaultServicePort
	}
	return *s.Port
}

// path is the reference's path, "/" when it names none.
func (s *ServiceReference) path() string {
	if s.Path == nil || *s.Path == "" {
		return "/"
	}
	return *s.Path
}

// serverName is the name the webhook's certificate must hold:
// name.namespace.svc, wherever the service is reached.
func (s *ServiceReference) serverName() string {
	return s.Name + "." + s.Namespace + ".svc"
}

// Validate checks c as kube-apiserver checks a webhook's client config,
// with its messages; path is the client config's own field path
// ("webhooks[0].clientConfig", "spec.conversion.webhook.clientConfig").
// It returns every problem found, none when c is valid. A caBundle is
// checked too; kube's CRD validation skips that check while a CRD's current
// bundle is itself invalid (ratcheting): the caller decides whether to ask.
func (c ClientConfig) Validate(path string, checkCABundle bool) []engine.FieldError {
	var errs []engine.FieldError
	switch {
	case (c.URL == nil) == (c.Service == nil):
		errs = append(errs, required(path, "exactly one of url or service is required"))
	case c.URL != nil:
		errs = append(errs, validateURL(path+".url", *c.URL)...)
	default:
		errs = append(errs, validateService(path+".service", c.Service)...)
	}
	if checkCABundle && len(c.CABundle) > 0 {
		errs = append(errs, validateCABundle(path+".caBundle", c.CABundle)...)
	}
	return errs
}

// urlForm is the hint kube appends to a URL's problems.
const urlForm = "; desired format: https://host[/path]"

// validateURL is kube's ValidateWebhookURL with https forced.
func validateURL(path, raw string) []engine.FieldError {
	u, err := url.Parse(raw)
	if err != nil {
		return []engine.FieldError{required(path, "url must be a valid URL: "+err.Error()+urlForm)}
	}
	var errs []engine.FieldError
	if u.Scheme != "https" {
		errs = append(errs, invalid(path, u.Scheme, "'https' is the only allowed URL scheme"+urlForm))
	}
	if u.Host == "" {
		errs = append(errs, invalid(path, u.Host, "host must be specified"+urlForm))
	}
	if u.User != nil {
		errs = append(errs, invalid(path, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, invalid(path, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, invalid(path, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateService is kube's ValidateWebhookService.
func validateService(path string, s *ServiceReference) []engine.FieldError {
	var errs []engine.FieldError
	if s.Name == "" {
		errs = append(errs, required(path+".name", ""))
	}
	if s.Namespace == "" {
		errs = append(errs, required(path+".namespace", ""))
	}
	if p := s.port(); p < 1 || p > 65535 {
		errs = append(errs, engine.FieldError{Type: engine.CauseInvalid, Path: path + ".port",
			Message: fmt.Sprintf("Invalid value: %d: port is not valid: must be between 1 and 65535, inclusive", p)})
	}
	if s.Path != nil {
		errs = append(errs, validateServicePath(path+".path", *s.Path)...)
	}
	return errs
}

// dns1123Subdomain is apimachinery's pattern for a lowercase RFC 1123
// subdomain, and dns1123Message its message for a value that does not match.
var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

const dns1123Message = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

// validateServicePath checks a service path as kube does: "/" or a
// sequence of "/"-separated RFC 1123 subdomains, an ending "/" allowed.
func validateServicePath(path, p string) []engine.FieldError {
	if p == "/" || p == "" {
		return nil
	}
	if p == "//" {
		return []engine.FieldError{invalid(path, p, "segment[0] may not be empty")}
	}
	var errs []engine.FieldError
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, invalid(path, p, "must start with a '/'"))
	}
	steps := strings.Split(strings.TrimSuffix(p[1:], "/"), "/")
	for i, step := range steps {
		if step == "" {
			errs = append(errs, invalid(path, p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		if len(step) > 253 {
			errs = append(errs, invalid(path, p, fmt.Sprintf("segment[%d]: must be no more than 253 characters", i)))
		}
		if !dns1123Subdomain.MatchString(step) {
			errs = append(errs, invalid(path, p, fmt.Sprintf("segment[%d]: %s", i, dns1123Message)))
		}
	}
	return errs
}

// validateCABundle is kube's ValidateCABundle: the bundle must hold at
// least one certificate; the value is shown base64-encoded, as kube shows
// a []byte.
func validateCABundle(path string, bundle []byte) []engine.FieldError {
	if _, err := certPool(bundle); err != nil {
		shown, _ := json.Marshal(bundle)
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: path,
			Message: "Invalid value: " + string(shown) + ": " + err.Error()}}
	}
	return nil
}

// certPool parses a CA bundle as client-go does: nil for an empty (or
// white-space) bundle, which means the system roots; client-go's words
// for a bundle with no usable certificate.
func certPool(bundle []byte) (*x509.CertPool, error) {
	if len(bytes.TrimSpace(bundle)) == 0 {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if pool.AppendCertsFromPEM(bundle) {
		return pool, nil
	}
	return nil, fmt.Errorf("unable to load root certificates: %w", whyNoCertificate(bundle))
}

// whyNoCertificate is client-go's createErrorParsingCAData: why a bundle
// that AppendCertsFromPEM refused holds no certificate.
func whyNoCertificate(rest []byte) error {
	for len(rest) > 0 {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return errors.New("unable to parse bytes as PEM block")
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("failed to parse certificate: %w", err)
		}
	}
	return errors.New("no valid certificate authority data seen")
}

// required is kube's field.Required, rendered.
func required(path, detail string) engine.FieldError {
	msg := "Required value"
	if detail != "" {
		msg += ": " + detail
	}
	return engine.FieldError{Type: engine.CauseRequired, Path: path, Message: msg}
}

// invalid is kube's field.Invalid for a string value, rendered.
func invalid(path, value, detail string) engine.FieldError {
	return engine.FieldError{Type: engine.CauseInvalid, Path: path,
		Message: "Invalid value: " + strconv.Quote(value) + ": " + detail}
}
