package main

import (
	"context"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
)

// startReloader loads the definitions, then follows their files until
// Close. A folder that cannot be read is logged, not fatal: what could be
// read serves, and the folder is watched for when it comes back.
func (m *Main) startReloader(ctx context.Context) error {
	runtimeConfig, err := registry.ParseRuntimeConfig(m.Config.RuntimeConfig)
	if err != nil {
		return err
	}
	policy, err := reload.ParsePolicy(m.Config.SchemaChangePolicy)
	if err != nil {
		return err
	}
	indexCtx, stopIndexer := context.WithCancel(ctx)
	m.indexer, m.stopIndexer = startFieldIndexer(indexCtx, m.store, m.Logger), stopIndexer
	m.reloader = reload.New(m.Config.Schemas, m.Config.Conversions, reload.Options{
		Logger: m.Logger, RuntimeConfig: runtimeConfig, Policy: policy,
		Preview: reload.StoredObjects{Store: m.store}.Check, Registerer: m.metrics, OnSwap: m.swapped,
	})
	if err := m.reloader.Reload(); err != nil {
		m.Logger.Warn("definitions", "err", err)
	}
	ctx, m.stopReload = context.WithCancel(ctx)
	m.reloading = make(chan struct{})
	go func() {
		defer close(m.reloading)
		if err := m.reloader.Run(ctx); err != nil {
			m.Logger.Error("definition files are not watched: changes need a restart", "err", err)
		}
	}()
	return nil
}

// swapped hands a new snapshot to the work that follows it, without
// waiting: the field indexes, the OpenAPI documents, and the return of
// the memory the change left behind.
func (m *Main) swapped(snap *registry.Snapshot) {
	m.indexer.swapped(snap)
	if api := m.api.Load(); api != nil {
		api.PrepareOpenAPI(m.release.changed)
	}
	m.release.changed()
}
