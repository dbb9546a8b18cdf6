package namespace

import (
	"context"
	"fmt"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Register makes service serve namespaces with their Strategy, and returns
// the Finalizer to run beside it: writes through service wake it.
func Register(service *resource.Service) *Finalizer {
	f := &Finalizer{service: service, poked: wait.NewNudge(), page: emptyPage}
	service.Register(engine.Namespaces, &Strategy{finalizer: f})
	service.OnRemove(func(key engine.ObjectKey) {
		if key.Namespace != "" {
			f.poked.Poke() // its namespace may be waiting for it
		}
	})
	return f
}

// Ensure creates namespace name unless it exists, as kube-apiserver does
// for "default" at start. Errors: NotFound when snap has no core Namespace
// kind; those of Create.
func Ensure(ctx context.Context, service *resource.Service, snap *registry.Snapshot, name string) error {
	res, ver, ok := snap.Lookup("", "v1", engine.Namespaces.Resource)
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "no Namespace kind (core group, v1) is defined")
	}
	body, err := sjson.SetBytes([]byte(`{"apiVersion":"v1","kind":"Namespace"}`), "metadata.name", name)
	if err != nil {
		return fmt.Errorf("build namespace %s: %w", name, err)
	}
	_, err = service.Create(ctx, resource.Target{Resource: res, Version: ver}, body, resource.WriteOptions{})
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return nil
	}
	return err
}
