package main

import (
	"context"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/crd"
	"github.com/dynapi/dynapi/engine/resource"
)

// startCRDs serves the CustomResourceDefinitions stored in the database
// (see package crd): those stored are served when Run returns, and what
// any process changes is followed until Close. It makes the service refuse
// a definition the registry would refuse.
func (m *Main) startCRDs(ctx context.Context, service *resource.Service) error {
	service.Checks = map[engine.GroupResource]resource.Check{crd.GroupResource: crd.Check}
	c := crd.New(service, m.reloader, m.Logger)
	if err := c.Sync(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx)
	}()
	m.stopCRDs = func() {
		cancel()
		<-done
	}
	return nil
}
