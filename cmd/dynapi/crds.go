package main

import (
	"context"

	"github.com/dynapi/dynapi/engine/crd"
	"github.com/dynapi/dynapi/engine/resource"
)

// startCRDs serves the CustomResourceDefinitions stored in the database
// (see package crd): those stored are served when Run returns, and what
// any process changes is followed until Close. crd.New makes the service
// refuse a definition the registry would refuse.
func (m *Main) startCRDs(ctx context.Context, service *resource.Service) error {
	c := crd.New(service, m.reloader, m.Logger)
	if err := c.Sync(ctx); err != nil {
		return err
	}
	m.stopCRDs = runUntilStopped(ctx, c.Run)
	return nil
}

// runUntilStopped runs f in a goroutine; stop cancels its context and
// waits for it to return.
func runUntilStopped(ctx context.Context, f func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
