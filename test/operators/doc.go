// Package operators proves that published operators run against dynapi
// unmodified: each is built from its published Go module at a pinned version
// (build/<operator>, fetched through the Go module proxy, built once per
// machine into a cache), installs its CRDs, RBAC and webhook configuration
// through the API with kubectl, authenticates as a ServiceAccount with a
// token from TokenRequest, and brings an object to its intended state.
//
// It is a module of its own, with no dependencies: the operators' own
// modules pin theirs, and dynapi's module depends on neither.
package operators
