package controlplane

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/registry"
)

// policyKinds are the admission policy resources with their kinds.
var policyKinds = map[informer.Resource]string{
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}:       "ValidatingAdmissionPolicy",
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}: "ValidatingAdmissionPolicyBinding",
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"}:         "MutatingAdmissionPolicy",
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"}:   "MutatingAdmissionPolicyBinding",
}

// policies are the admission policy plug-ins of a control plane, with
// the policies from files (static) and those stored through the API,
// compiled together whenever either changes.
type policies struct {
	plugins  *admissionpolicy.Plugins
	follower *informer.Set
	logger   *slog.Logger
	// changed is told of every change of the stored policies, on any
	// process (the status controller's poke).
	changed func()

	mu     sync.Mutex // guards files, static and api; held while compiling
	files  []registry.AdmissionDocument
	static admissionpolicy.Objects
	api    informer.Objects
}

// policyStatusRecheck is how often the policies' status is looked at
// besides when they change: a change seen while another process held
// the status lock is caught up then.
const policyStatusRecheck = 10 * time.Second

// newPolicies builds the plug-ins; startPolicies fills them. changed is
// called after each change of the stored policies.
func (c *ControlPlane) newPolicies(cfg Config, a authz.Authorizer, changed func()) *policies {
	p := &policies{plugins: admissionpolicy.NewPlugins(newPolicyStore(cfg.Service, c.snapshots, a)), logger: cfg.Logger, changed: changed}
	resources := make([]informer.Resource, 0, len(policyKinds))
	for r := range policyKinds {
		resources = append(resources, r)
	}
	p.follower = informer.NewSet(cfg.Service, c.snapshots, cfg.Logger, resources, p.apiChanged)
	p.filesChanged(c.snapshots.Load())
	c.policies.Store(p)
	return p
}

// filesChanged compiles the policies of the definition files of snap
// with those stored, when they changed. The registry checked them (see
// admissionpolicy.CheckStatic) and kept a broken file's previous ones.
func (p *policies) filesChanged(snap *registry.Snapshot) {
	docs := snap.Admission()
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.EqualFunc(docs, p.files, func(a, b registry.AdmissionDocument) bool { return bytes.Equal(a.JSON, b.JSON) }) {
		return
	}
	var static admissionpolicy.Objects
	for _, d := range docs {
		if err := static.Add(d.Kind, d.JSON); err != nil {
			p.logger.Warn("admission policy file left out", "file", d.File, "err", err)
		}
	}
	p.files, p.static = docs, static
	p.compileLocked()
}

// startPolicies follows the stored policies and waits until they are
// listed, so that no write is admitted without them; nothing when
// admissionregistration.k8s.io/v1 is switched off.
func (c *ControlPlane) startPolicies(ctx context.Context, p *policies) error {
	if _, _, ok := c.snapshots.Load().Lookup("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"); !ok {
		return nil // switched off (--runtime-config): only the files' policies
	}
	c.Go(ctx, p.follower.Run)
	waitCtx, cancel := context.WithTimeout(ctx, rbacSyncTimeout)
	defer cancel()
	return p.follower.WaitSynced(waitCtx)
}

func (p *policies) apiChanged(objs informer.Objects) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.api = objs
	p.compileLocked()
	p.changed()
}

// compileLocked publishes the policies held, compiled. A stored object
// that does not decode is left out (the kinds' validation keeps them out
// of the store).
func (p *policies) compileLocked() {
	var api admissionpolicy.Objects
	for r, objs := range p.api {
		for key, body := range objs {
			if err := api.Add(policyKinds[r], body); err != nil {
				p.logger.Warn("admission policy object left out", "resource", r.Resource, "key", key, "err", err)
			}
		}
	}
	p.plugins.Publish(admissionpolicy.Compile(p.static.Clone(), api))
}

// authorizerOf is the authorizer CEL's `authorizer` asks: the RBAC
// index, else the HTTP API's, else none (everything allowed).
func authorizerOf(cfg Config, index *rbacIndex) authz.Authorizer {
	if index != nil {
		return index
	}
	return cfg.HTTP.Authorizer
}
