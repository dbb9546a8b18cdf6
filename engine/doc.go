// Package engine holds dynapi's vocabulary: the names of API resources, the
// object as raw JSON bytes, the one error type, and the Store interface that
// storage implementations satisfy. It imports only the standard library.
//
// A request flows through the packages below engine like this:
//
//	httpapi (routes, content negotiation, Status rendering)
//	  → resource (decode → check apiVersion/kind → prune → default → validate
//	              → convert to storage version → Store; the reverse on read)
//	      → registry (immutable Snapshot of definitions, swapped atomically)
//	      → schema   (compiled JSON Schema: prune, default, validate)
//	      → convert  (declarative conversion through the hub)
//	      → Store    (postgres: JSONB rows, resourceVersion, event log)
package engine
