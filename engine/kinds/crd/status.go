package crd

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

// status is a definition's status, as kube-apiserver writes it.
type status struct {
	Conditions     []condition `json:"conditions"`
	AcceptedNames  names       `json:"acceptedNames"`
	StoredVersions []string    `json:"storedVersions"`
}

// condition is one entry of status.conditions.
type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// Conditions, with kube-apiserver's reasons and messages.
var (
	namesAccepted = condition{Type: "NamesAccepted", Status: "True", Reason: "NoConflicts", Message: "no conflicts found"}
	established   = condition{Type: "Established", Status: "True", Reason: "InitialNamesAccepted",
		Message: "the initial names have been accepted"}
	notEstablished = condition{Type: "Established", Status: "False", Reason: "NotAccepted",
		Message: "not all names are accepted"}
)

// statusOf computes the status of definition obj in snap, whose problems
// are given; changed says whether it differs from obj's.
func (c *Controller) statusOf(obj []byte, snap *registry.Snapshot, problems []registry.Problem) (s status, changed bool) {
	p := c.passOf(snap, problems)
	d := c.definitionOf(obj)
	if r, ok := servedByFile(snap, d); ok {
		return c.fileStatus(d, r)
	}
	name, n := d.name, d.names
	held := p.heldBefore(d)
	held.addAll(p.files[d.group])
	found := held.conflicts(n)
	accept, est := namesAccepted, established
	if len(found) > 0 {
		accept = condition{Type: accept.Type, Status: "False", Reason: found[0].reason(), Message: joined(found)}
	}
	acceptedNames := accepted(n, found)
	if r := p.served[registry.APIFilePrefix+name]; r != nil {
		// It may be the definition as it was before a change that was
		// refused (its new names conflict): the names it serves under.
		acceptedNames = namesOf(r)
	} else {
		est = notEstablished
		if len(found) == 0 {
			est.Message = refusal(p.refusals[registry.APIFilePrefix+name])
		}
	}
	old, oldJSON, stored := d.written()
	s = status{
		Conditions:     append([]condition{c.since(accept, old), c.since(est, old)}, othersOf(old)...),
		AcceptedNames:  acceptedNames,
		StoredVersions: stored,
	}
	return s, s.json() != oldJSON
}

// othersOf returns the conditions of old that others own (a storage
// version migration's StorageMigrating, the Cleaner's Terminating), to be
// kept as they are, as kube-apiserver's controllers set only their own.
func othersOf(old status) []condition {
	var others []condition
	for _, c := range old.Conditions {
		if c.Type != namesAccepted.Type && c.Type != established.Type && c.Type != definitionFile {
			others = append(others, c)
		}
	}
	return others
}

// fileStatus is the status of definition d, which matches the file
// resource r: served, by the file.
func (c *Controller) fileStatus(d *definition, r *registry.Resource) (status, bool) {
	old, oldJSON, stored := d.written()
	s := status{
		Conditions:     append([]condition{c.since(namesAccepted, old), c.since(established, old), c.since(fileCondition(r), old)}, othersOf(old)...),
		AcceptedNames:  namesOf(r),
		StoredVersions: stored,
	}
	return s, s.json() != oldJSON
}

func (s status) json() string {
	out, _ := json.Marshal(s) // plain strings and slices always marshal
	return string(out)
}

// view is the status without its times: what a process concludes from its
// snapshot, the same whenever it concludes it.
func (s status) view() string {
	s.Conditions = slices.Clone(s.Conditions)
	for i := range s.Conditions {
		s.Conditions[i].LastTransitionTime = ""
	}
	return s.json()
}

// since sets the condition's lastTransitionTime: kept from the old status
// while the condition's status stays, now when it changes. Keeping it is
// what lets processes agree on a status once one of them wrote it.
func (c *Controller) since(cond condition, old status) condition {
	cond.LastTransitionTime = c.Now().UTC().Format(time.RFC3339)
	for _, o := range old.Conditions {
		if o.Type == cond.Type && o.Status == cond.Status {
			cond.LastTransitionTime = o.LastTransitionTime
		}
	}
	return cond
}

// readStatus reads what the status holds of what statusOf writes; anything
// else reads as a zero status, which is rewritten.
func readStatus(obj []byte) status {
	var s status
	if json.Unmarshal([]byte(gjson.GetBytes(obj, "status").Raw), &s) != nil {
		return status{}
	}
	return s
}

// storedVersions adds the storage version to the versions objects were
// stored in before, as kube-apiserver does: it never drops one by itself,
// since stored objects may still be in it.
func storedVersions(obj []byte, old []string) []string {
	storage := ""
	for _, v := range gjson.GetBytes(obj, "spec.versions").Array() {
		if v.Get("storage").Bool() {
			storage = v.Get("name").Str
		}
	}
	for _, v := range old {
		if v == storage {
			return old
		}
	}
	if storage == "" {
		return old
	}
	return append(old, storage)
}

// joined renders the conflicts for a condition's message.
func joined(found []conflict) string {
	msgs := make([]string, len(found))
	for i, c := range found {
		msgs[i] = c.String()
	}
	return strings.Join(msgs, "; ")
}

// refusal says why the registry refused a definition, with the reasons
// it gave.
func refusal(reasons []string) string {
	if len(reasons) == 0 {
		return "the definition is not served"
	}
	return strings.Join(reasons, "; ")
}
