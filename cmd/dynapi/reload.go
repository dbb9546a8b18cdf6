package main

import (
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
)

// files are the definition files serve follows, with the runtime config
// and the schema-change policy parsed. Errors: those of parsing them.
func (cfg Config) files() (*controlplane.Files, error) {
	runtimeConfig, err := registry.ParseRuntimeConfig(cfg.RuntimeConfig)
	if err != nil {
		return nil, err
	}
	policy, err := reload.ParsePolicy(cfg.SchemaChangePolicy)
	if err != nil {
		return nil, err
	}
	return &controlplane.Files{Schemas: cfg.Schemas, Conversions: cfg.Conversions, RuntimeConfig: runtimeConfig, Policy: policy,
		DeletionProtection: cfg.CRDDeletionProtection}, nil
}
