//go:build tools

// Package tools pins sealed-secrets' published module, v0.40.0 of
// github.com/bitnami-labs/sealed-secrets, whose go.mod declares the path
// github.com/bitnami/sealed-secrets (hence the replace in go.mod): its
// controller and kubeseal are built from it unmodified.
package tools

import (
	_ "github.com/bitnami/sealed-secrets/cmd/controller"
	_ "github.com/bitnami/sealed-secrets/cmd/kubeseal"
)
