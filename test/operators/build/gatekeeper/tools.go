//go:build tools

// Package tools pins OPA Gatekeeper's published module,
// github.com/open-policy-agent/gatekeeper/v3 v3.23.1: its manager (the
// module's root package, the program of Gatekeeper's Deployments) is built
// from it unmodified.
package tools

import (
	_ "github.com/open-policy-agent/gatekeeper/v3"
)
