package webhooktest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// Conversion is a conversion webhook program, as an operator writes one:
// its kind's v1 has spec.size, its v2 has spec.dimensions.size (the same
// number), and it converts either way, with labels and annotations kept.
// It answers a ConversionReview in the version it was asked in, and
// records every call.
type Conversion struct {
	// Convert, when set, converts instead: one object to the desired
	// apiVersion (HostPort is one).
	Convert func(obj map[string]any, desired string) map[string]any

	mu    sync.Mutex
	calls []Call
}

// Call is one call a Conversion answered.
type Call struct {
	// Review is the ConversionReview's apiVersion.
	Review string
	// Path is the URL path called, Query its query (the timeout).
	Path, Query string
	// Desired is the request's desiredAPIVersion, Objects how many it had.
	Desired string
	Objects int
}

// Calls returns the calls so far.
func (c *Conversion) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.calls...)
}

// Reset forgets the calls so far.
func (c *Conversion) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = nil
}

// review is a ConversionReview, either version.
type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID               string           `json:"uid"`
		DesiredAPIVersion string           `json:"desiredAPIVersion"`
		Objects           []map[string]any `json:"objects"`
	} `json:"request,omitempty"`
	Response map[string]any `json:"response,omitempty"`
}

// ServeHTTP answers one ConversionReview.
func (c *Conversion) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rv review
	if err := json.NewDecoder(r.Body).Decode(&rv); err != nil || rv.Request == nil {
		http.Error(w, "not a ConversionReview", http.StatusBadRequest)
		return
	}
	req := rv.Request
	c.mu.Lock()
	c.calls = append(c.calls, Call{Review: rv.APIVersion, Path: r.URL.Path, Query: r.URL.RawQuery,
		Desired: req.DesiredAPIVersion, Objects: len(req.Objects)})
	c.mu.Unlock()
	convert := c.Convert
	if convert == nil {
		convert = convertSize
	}
	converted := make([]map[string]any, len(req.Objects))
	for i, obj := range req.Objects {
		converted[i] = convert(obj, req.DesiredAPIVersion)
	}
	answer := review{APIVersion: rv.APIVersion, Kind: "ConversionReview", Response: map[string]any{
		"uid": req.UID, "convertedObjects": converted, "result": map[string]any{"status": "Success"}}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// convertSize moves spec.size to spec.dimensions.size for v2, back for v1.
func convertSize(obj map[string]any, desired string) map[string]any {
	spec, _ := obj["spec"].(map[string]any)
	if spec != nil {
		if strings.HasSuffix(desired, "/v2") {
			if size, ok := spec["size"]; ok {
				delete(spec, "size")
				spec["dimensions"] = map[string]any{"size": size}
			}
		} else if dims, ok := spec["dimensions"].(map[string]any); ok {
			delete(spec, "dimensions")
			if size, ok := dims["size"]; ok {
				spec["size"] = size
			}
		}
	}
	obj["apiVersion"] = desired
	return obj
}

// HostPort converts as the webhook of Kubernetes' e2e spec
// CustomResourceFieldSelectors (agnhost crd-conversion-webhook): v1 has
// hostPort "HOST:PORT" at the top level, v2 host and port.
func HostPort(obj map[string]any, desired string) map[string]any {
	if strings.HasSuffix(desired, "/v2") {
		if hp, ok := obj["hostPort"].(string); ok {
			delete(obj, "hostPort")
			host, port, _ := strings.Cut(hp, ":")
			obj["host"], obj["port"] = host, port
		}
	} else if host, ok := obj["host"].(string); ok {
		port, _ := obj["port"].(string)
		delete(obj, "host")
		delete(obj, "port")
		obj["hostPort"] = host + ":" + port
	}
	obj["apiVersion"] = desired
	return obj
}

// APIVersion converts by rewriting apiVersion alone, as the
// external-snapshotter's webhook does between versions whose fields are
// the same (the group snapshot kinds' specs in v1beta1, v1beta2 and v1).
func APIVersion(obj map[string]any, desired string) map[string]any {
	obj["apiVersion"] = desired
	return obj
}
