// Package clients proves that the standard Kubernetes clients work against
// dynapi: client-go's dynamic client, dynamic and metadata informers and
// discovery, and a controller-runtime manager. It is a module of its own,
// so that dynapi's module does not depend on controller-runtime; its tests
// build dynapi from the repository (../..), start it with a private
// PostgreSQL, and drive it as a cluster.
package clients
