// Package reload keeps a process's registry snapshot in step with its
// definition files and with the definitions created through the API.
//
// A Reloader watches the schemas and conversions folders (recursively,
// new subfolders included) and, about 100 ms after the last change, builds
// a new snapshot with registry.LoadWith and swaps it in atomically: each
// request runs on the snapshot it started with, so a swap never fails one.
// A build starts from the snapshot it replaces, so that a broken file
// never takes down what worked: the previous definitions from a refused
// file serve on (see registry.LoadOptions.Previous). A definition whose
// schemas change is checked against its stored objects first (Preview;
// StoredObjects.Check reads them from the Store, SchemaCheck is the result);
// under PolicyRefuse, a change that would break some keeps the previous
// definition serving.
//
// What happened is told three ways: the log (each new problem with its
// file, line and reason; each resource added, removed or kept), Problems
// and SchemaChecks (for the status endpoint), and Prometheus metrics:
//
//	dynapi_definitions_loaded                      resources in the current snapshot
//	dynapi_definition_problems{file}               problems of the last build, per file (warnings, which refuse nothing, apart)
//	dynapi_reloads_total{result="success|failure"} builds: success when new definitions were swapped in
//	                                               (a refused file serving on as before), failure when a folder could not be read
//	dynapi_last_reload_success_timestamp_seconds   when the last successful build ended
package reload
