// Package apiservice is the APIService kind's strategy. dynapi serves
// APIService (apiregistration.k8s.io/v1) so that tools which index it at
// start (CA injectors, kubectl api-resources' checks) run unchanged, but
// proxies to no aggregated API server: every APIService is stored with
// its Available condition False and a reason saying so, which the server
// owns as kube's availability controller owns it in kube-aggregator.
package apiservice

import (
	"fmt"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is the resource the Strategy serves.
var Resource = engine.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}

// The Available condition every APIService carries until dynapi
// aggregates APIs.
const (
	Reason  = "AggregationNotSupported"
	Message = "dynapi does not proxy requests to aggregated API servers"
)

// Strategy is the APIService kind's strategy.
type Strategy struct {
	resource.CustomResource
	// Now is the clock of the condition's lastTransitionTime.
	Now func() time.Time
}

var _ resource.Strategy = Strategy{}

// Register makes service serve apiservices with their Strategy.
func Register(service *resource.Service) {
	service.Register(Resource, Strategy{Now: time.Now})
}

// PrepareForCreate sets the Available condition.
func (s Strategy) PrepareForCreate(w *resource.Write) error {
	return s.setAvailable(w, nil)
}

// PrepareForUpdate sets the Available condition over whatever the update
// sends, keeping its lastTransitionTime from the stored object.
func (s Strategy) PrepareForUpdate(w *resource.Write) error {
	return s.setAvailable(w, w.Old)
}

// setAvailable replaces status.conditions' Available entry with the
// server's, since the stored one's time when it was set already; the
// other conditions are the writer's.
func (s Strategy) setAvailable(w *resource.Write, old []byte) error {
	since := s.Now().UTC().Format(time.RFC3339)
	if prev := available(old); prev.Get("status").String() == "False" && prev.Get("lastTransitionTime").Exists() {
		since = prev.Get("lastTransitionTime").String()
	}
	conditions := []any{map[string]string{"type": "Available", "status": "False", "lastTransitionTime": since,
		"reason": Reason, "message": Message}}
	for _, c := range gjson.GetBytes(w.Object, "status.conditions").Array() {
		if c.Get("type").String() != "Available" {
			conditions = append(conditions, c.Value())
		}
	}
	out, err := sjson.SetBytes(w.Object, "status.conditions", conditions)
	if err != nil {
		return fmt.Errorf("set apiservice condition: %w", err)
	}
	w.Object = out
	return nil
}

// available is the Available condition of obj (nil: none).
func available(obj []byte) gjson.Result {
	return gjson.GetBytes(obj, `status.conditions.#(type=="Available")`)
}
