// Package storageversionmigration serves storagemigration.k8s.io/v1
// StorageVersionMigration as Kubernetes v1.37 does: its Strategy is
// kube-apiserver's (pkg/registry/storagemigration), and its Controller
// runs each migration as kube-controller-manager's migration runner,
// resource version and storage version migrator controllers do together
// (pkg/controller/storageversionmigrator):
//
//	kubectl create -f svm.yaml   (spec.resource: {group, resource})
//	  → Running=True (MigrationRunning), and, for a CustomResourceDefinition
//	    created through the API, its StorageMigrating=True
//	  → status.resourceVersion: the resource's list resourceVersion
//	  → every object written at or before it and not stored in the storage
//	    version rewritten (engine/storagemigration: a no-op merge patch
//	    through the pipeline), the Running message counting what is left
//	  → Succeeded=True (or Failed=True), then Running=False
//	    (MigrationCompleted), and the definition's status.storedVersions
//	    trimmed to the storage version, StorageMigrating=False.
//
// Migrations of one resource run one at a time, the oldest first, as
// kube's runner promotes them; a process runs those of different
// resources one after another, and another process takes a resource the
// first does not hold. One process at a time works on a resource, under a
// Store lock (engine.Store.TryLock), as the garbage collector and the
// namespace finalizer work; every write it makes, to the objects migrated
// and to the migrations' and definitions' statuses, goes through the
// pipeline as a client's would. A migration stopped half-way (the process
// died) is taken up again by the next process that looks: it is still
// Running, and rewriting is idempotent.
package storageversionmigration
