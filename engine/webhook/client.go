package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine"
)

// Timeouts of a call, kube's: admission webhooks default to 10 s and may
// ask for at most 30 s (their timeoutSeconds).
const (
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 30 * time.Second
)

// DefaultMaxResponseBytes bounds a webhook's response. kube reads a
// webhook's response whole, with no bound; dynapi bounds it, generously:
// a ConversionReview answers for a page of objects of up to 3 MiB each.
const DefaultMaxResponseBytes = 64 << 20

// Options configure a Client. The zero value is usable: kube's DNS form
// for services, no metrics registered, DefaultMaxResponseBytes.
type Options struct {
	// Resolver resolves service references; nil: DefaultServiceTemplate.
	Resolver *ServiceResolver
	// Registerer takes the Client's metrics (see metrics.go); nil: none.
	Registerer prometheus.Registerer
	// MaxResponseBytes bounds a response; 0: DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

// Client calls webhooks. It is safe for concurrent use, and keeps its
// transports (and their connections) across calls.
type Client struct {
	transports *transports
	metrics    *metrics
	maxBytes   int64
}

// New returns a Client. It panics when opts.Registerer already holds the
// Client's metrics, as prometheus' MustRegister does.
func New(opts Options) *Client {
	if opts.Resolver == nil {
		opts.Resolver, _ = NewServiceResolver("", nil) // the default template always parses
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return &Client{transports: newTransports(opts.Resolver), metrics: newMetrics(opts.Registerer),
		maxBytes: opts.MaxResponseBytes}
}

// Request is one call to a webhook.
type Request struct {
	// Name is the webhook's name, in errors and metrics: an admission
	// webhook's name, or kube's "conversion_webhook_for_<crd name>".
	Name string
	// Type is the metrics' type label: "admit", "validating" or "conversion".
	Type   string
	Config ClientConfig
	// Body is the JSON to POST (an AdmissionReview, a ConversionReview).
	Body []byte
	// Timeout bounds the call, reading the response included; 0:
	// DefaultTimeout; more than MaxTimeout: MaxTimeout. A shorter deadline
	// of ctx wins.
	Timeout time.Duration
}

// Call POSTs req.Body to the webhook req.Config names, and returns the body
// of its 2xx response. Any failure to get one is an *ErrCallingWebhook in
// kube's words; its Status is what to answer the client that caused the
// call (ServiceUnavailable, or the webhook's own Status for a non-2xx).
func (c *Client) Call(ctx context.Context, req Request) ([]byte, error) {
	start := time.Now()
	body, code, reason, err := c.call(ctx, &req)
	c.metrics.observe(&req, code, time.Since(start), reason, err)
	return body, err
}

// call is Call without the metrics: it returns the body, the HTTP status
// code (0 when none came), and on failure the reason label and the error.
func (c *Client) call(ctx context.Context, req *Request) ([]byte, int, string, error) {
	target, key, err := c.target(req.Config)
	if err != nil {
		return nil, 0, FailConfig, &ErrCallingWebhook{WebhookName: req.Name, Reason: err, Err: err,
			Status: statusInternal(err)}
	}
	rt, err := c.transports.get(key, req.Config.CABundle)
	if err != nil {
		err = fmt.Errorf("could not get REST client: %w", err) // kube's words for a client it cannot build
		return nil, 0, FailConfig, &ErrCallingWebhook{WebhookName: req.Name, Reason: err, Err: err,
			Status: statusInternal(err)}
	}
	ctx, cancel := context.WithTimeout(ctx, clampTimeout(req.Timeout))
	defer cancel()
	u := withTimeout(ctx, target)
	resp, err := c.post(ctx, rt, u, req.Body)
	if err != nil {
		return nil, 0, failureReason(ctx, err), callError(req.Name, err, nil, 0)
	}
	defer resp.Body.Close()
	return c.read(ctx, req, u, resp)
}

// withTimeout is target with the ?timeout= parameter client-go adds: the
// time left before ctx's deadline, rounded up to whole seconds, as kube's
// dispatchers compute it.
func withTimeout(ctx context.Context, target *url.URL) *url.URL {
	u := *target
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline); left > 0 {
			if whole := left.Truncate(time.Second); whole != left {
				left = whole + time.Second
			}
			u.RawQuery = "timeout=" + left.String()
		}
	}
	return &u
}

// post sends the request.
func (c *Client) post(ctx context.Context, rt http.RoundTripper, u *url.URL, body []byte) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, */*")
	// http.Client, not rt.RoundTrip: its errors are the *url.Error kube's
	// texts quote (`Post "https://…": …`).
	client := &http.Client{Transport: rt, CheckRedirect: noRedirect}
	return client.Do(hr)
}

// noRedirect answers a redirect with the 3xx itself (a failed call): a
// redirect would lead the call off the URL that was validated, perhaps to
// plain HTTP or another host.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// read reads a response, bounded; a non-2xx is the webhook's Status.
func (c *Client) read(ctx context.Context, req *Request, u *url.URL, resp *http.Response) ([]byte, int, string, error) {
	code := resp.StatusCode
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err == nil && ctx.Err() != nil {
		// The answer came as the deadline passed. Go's transport hands over
		// a response it read while closing the connection, and a webhook
		// that stops when its request is canceled answers that with an
		// empty 200: past the deadline the call failed, whatever came.
		err = context.Cause(ctx)
	}
	if err != nil {
		err = &url.Error{Op: "Post", URL: u.String(), Err: err}
		return nil, code, failureReason(ctx, err), callError(req.Name, err, nil, code)
	}
	if int64(len(body)) > c.maxBytes {
		err = &url.Error{Op: "Post", URL: u.String(),
			Err: fmt.Errorf("response body larger than the limit of %d bytes", c.maxBytes)}
		return nil, code, FailTooLarge, callError(req.Name, err, nil, code)
	}
	if code < 200 || code > 299 {
		status := statusOf(code, resp.Header.Get("Content-Type"), body)
		return nil, code, FailStatus, callError(req.Name, status, status, code)
	}
	if len(body) == 0 {
		err = fmt.Errorf("0-length response with status code: %d and content type: %s", code, resp.Header.Get("Content-Type")) // client-go's words
		return nil, code, FailEmpty, callError(req.Name, err, nil, code)
	}
	return body, code, "", nil
}

// target is the URL to POST to and the transport that reaches it.
func (c *Client) target(cfg ClientConfig) (*url.URL, transportKey, error) {
	key := transportKey{caBundle: sha256.Sum256(bytes.TrimSpace(cfg.CABundle))}
	if svc := cfg.Service; svc != nil {
		if svc.Name == "" || svc.Namespace == "" {
			return nil, key, errors.New("cannot resolve an empty service name or namespace or port")
		}
		key.serverName = svc.serverName()
		key.service = serviceKey{namespace: svc.Namespace, name: svc.Name}
		host := net.JoinHostPort(key.serverName, strconv.Itoa(int(svc.port())))
		return &url.URL{Scheme: "https", Host: host, Path: svc.path()}, key, nil
	}
	if cfg.URL == nil || *cfg.URL == "" {
		return nil, key, errors.New("webhook configuration must have either service or URL") // kube's words
	}
	u, err := url.Parse(*cfg.URL)
	if err != nil {
		return nil, key, fmt.Errorf("Unparsable URL: %v", err) //nolint:staticcheck // kube's words, capital U
	}
	if u.Scheme != "https" || u.Host == "" {
		return nil, key, fmt.Errorf("webhook URL %q: 'https' is the only allowed URL scheme; desired format: https://host[/path]", *cfg.URL)
	}
	key.http2 = isLoopback(u.Hostname())
	return u, key, nil
}

// isLoopback tells localhost and loopback addresses, to which kube allows
// HTTP/2.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clampTimeout applies DefaultTimeout and MaxTimeout.
func clampTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return min(d, MaxTimeout)
}

// failureReason classifies a failed round trip for the metrics.
func failureReason(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return FailTimeout
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return FailCanceled
	case isCertificateError(err):
		return FailTLS
	}
	return FailConnection
}

// isCertificateError tells a certificate that did not verify.
func isCertificateError(err error) bool {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid)
}

// statusInternal is the Status for a call that could not be made: kube's
// NewInternalError, "Internal error occurred: …".
func statusInternal(err error) *engine.Error {
	return engine.Errorf(engine.CodeInternal, "Internal error occurred: %v", err)
}
