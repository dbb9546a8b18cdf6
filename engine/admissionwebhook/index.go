package admissionwebhook

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/resource"
)

// Index follows the webhook configurations stored through a
// resource.Service and publishes their compiled webhooks. A change
// through any process reaches it through the watch (see informer.Set).
type Index struct {
	set    *informer.Set
	logger *slog.Logger
	authz  authorizer.UnconditionalAuthorizer
	snap   atomic.Pointer[snapshot]
}

// snapshot is the webhooks in force, each list in kube's order:
// configurations by name, webhooks in their order.
type snapshot struct {
	mutating, validating []*hook
}

// kinds are the followed resources, mutating first.
var kinds = [2]struct {
	resource informer.Resource
	mutating bool
}{
	{informer.Resource{Group: Group, Version: "v1", Resource: "mutatingwebhookconfigurations"}, true},
	{informer.Resource{Group: Group, Version: "v1", Resource: "validatingwebhookconfigurations"}, false},
}

// NewIndex returns an Index with no webhooks; Run fills it. authz
// answers the `authorizer` of the webhooks' matchConditions, as the
// authorizer kube gives its webhook plug-ins.
func NewIndex(service *resource.Service, snapshots informer.Snapshots, logger *slog.Logger, authz authorizer.UnconditionalAuthorizer) *Index {
	x := &Index{logger: logger, authz: authz}
	x.snap.Store(&snapshot{})
	x.set = informer.NewSet(service, snapshots, logger, []informer.Resource{kinds[0].resource, kinds[1].resource}, x.compile)
	return x
}

// Run follows both kinds until ctx ends.
func (x *Index) Run(ctx context.Context) { x.set.Run(ctx) }

// WaitSynced waits until both kinds were listed once. Errors: ctx's.
func (x *Index) WaitSynced(ctx context.Context) error { return x.set.WaitSynced(ctx) }

// compile publishes the webhooks of the configurations objs.
func (x *Index) compile(objs informer.Objects) {
	var s snapshot
	for _, k := range kinds {
		names := slices.Sorted(maps.Keys(objs[k.resource])) // kube sorts configurations by name
		for _, name := range names {
			hooks, err := compileConfig(objs[k.resource][name], k.mutating)
			if err != nil {
				x.logger.Warn("webhook configuration left out", "resource", k.resource.Resource, "name", name, "err", err)
				continue
			}
			if k.mutating {
				s.mutating = append(s.mutating, hooks...)
			} else {
				s.validating = append(s.validating, hooks...)
			}
		}
	}
	x.snap.Store(&s)
}
