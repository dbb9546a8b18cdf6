// Package audit records what the server was asked and answered, as
// kube-apiserver's audit log does: an audit.k8s.io/v1 Policy says, by the
// first rule that matches a request, at which level it is recorded (None,
// Metadata, Request, RequestResponse) and which stages are left out; the
// Log writes audit.k8s.io/v1 Events as JSON lines to a file it rotates,
// or to standard output.
package audit

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine/authz"
)

// Level is how much of a request is recorded.
type Level string

// The levels, from nothing to everything.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

// AtLeast reports whether l records as much as other.
func (l Level) AtLeast(other Level) bool { return l.rank() >= other.rank() }

func (l Level) rank() int {
	return slices.Index([]Level{LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse}, l)
}

// Stage is a point in a request's life an event is recorded at.
type Stage string

// The stages dynapi records.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted"
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Policy is audit.k8s.io/v1 Policy.
type Policy struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Rules      []Rule  `json:"rules"`
	OmitStages []Stage `json:"omitStages,omitempty"`
}

// Rule is one rule of a Policy; empty lists match everything.
type Rule struct {
	Level           Level            `json:"level"`
	Users           []string         `json:"users,omitempty"`
	UserGroups      []string         `json:"userGroups,omitempty"`
	Verbs           []string         `json:"verbs,omitempty"`
	Resources       []GroupResources `json:"resources,omitempty"`
	Namespaces      []string         `json:"namespaces,omitempty"`
	NonResourceURLs []string         `json:"nonResourceURLs,omitempty"`
	OmitStages      []Stage          `json:"omitStages,omitempty"`
}

// GroupResources selects resources of one group ("" the core group).
type GroupResources struct {
	Group         string   `json:"group"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// LoadPolicy reads a policy file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read audit policy: %w", err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy reads a Policy in YAML or JSON, refusing unknown fields and
// levels, as kube-apiserver does.
func ParsePolicy(data []byte) (*Policy, error) {
	var p Policy
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return nil, fmt.Errorf("audit policy: %w", err)
	}
	if p.Kind != "Policy" || (p.APIVersion != "audit.k8s.io/v1") {
		return nil, fmt.Errorf("audit policy: want apiVersion audit.k8s.io/v1, kind Policy; got %s, %s", p.APIVersion, p.Kind)
	}
	for i, r := range p.Rules {
		if r.Level.rank() < 0 {
			return nil, fmt.Errorf("audit policy: rules[%d]: unknown level %q", i, r.Level)
		}
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			return nil, fmt.Errorf("audit policy: rules[%d]: nonResourceURLs go with neither resources nor namespaces", i)
		}
	}
	return &p, nil
}

// Evaluate returns the level of the first rule matching a, None when no
// rule does, and the stages to leave out.
func (p *Policy) Evaluate(a *authz.Attributes) (Level, []Stage) {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matches(a) {
			return r.Level, append(slices.Clip(p.OmitStages), r.OmitStages...)
		}
	}
	return LevelNone, nil
}

// matches is kube's policy rule matching. A request with no user (one
// refused for its credentials) matches only rules that name no users and
// no groups, as in kube, so that failed logins are recorded too.
func (r *Rule) matches(a *authz.Attributes) bool {
	if len(r.Users) > 0 && (a.User == nil || !slices.Contains(r.Users, a.User.Name)) {
		return false
	}
	if len(r.UserGroups) > 0 && (a.User == nil || !slices.ContainsFunc(r.UserGroups, a.User.InGroup)) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	if a.ResourceRequest {
		return len(r.NonResourceURLs) == 0 && (len(r.Resources) == 0 || r.matchesResource(a)) &&
			(len(r.Namespaces) == 0 || slices.Contains(r.Namespaces, a.Namespace))
	}
	if len(r.Resources) > 0 || len(r.Namespaces) > 0 {
		return false
	}
	return len(r.NonResourceURLs) == 0 || slices.ContainsFunc(r.NonResourceURLs, func(u string) bool {
		return u == "*" || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimSuffix(u, "*")))
	})
}

func (r *Rule) matchesResource(a *authz.Attributes) bool {
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != a.APIGroup {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, a.Name) {
			continue
		}
		for _, res := range gr.Resources {
			switch {
			case res == combined, res == "*":
				return true
			case a.Subresource != "" && strings.HasPrefix(res, "*/") && a.Subresource == res[2:]:
				return true
			case strings.HasSuffix(res, "/*") && a.Resource == strings.TrimSuffix(res, "/*"):
				return true
			}
		}
	}
	return false
}
