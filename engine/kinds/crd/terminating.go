package crd

import (
	"fmt"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// terminating is the set of definitions being deleted (deletionTimestamp
// set, their objects being cleaned up), by name: while one is, a create of
// its kind is refused, as kube-apiserver refuses it, so that the Cleaner
// is not left behind by new objects. The Controller keeps it from the
// definitions it follows; request goroutines read it.
type terminating struct {
	mu    sync.RWMutex
	names map[string]bool
}

// note records whether the definition obj is being deleted.
func (t *terminating) note(obj []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.noteLocked(obj)
}

func (t *terminating) noteLocked(obj []byte) {
	name := nameOf(obj)
	if !gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() {
		delete(t.names, name)
		return
	}
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[name] = true
}

// forget drops the definition name (deleted).
func (t *terminating) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// reset records the definitions of a full list.
func (t *terminating) reset(objects map[string][]byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.names)
	for _, obj := range objects {
		t.noteLocked(obj)
	}
}

// guard refuses a create of gr while its definition (named
// <plural>.<group>, as Check requires) is being deleted, in
// apiextensions-apiserver's words (its forbidCreateAdmission).
func (t *terminating) guard(gr engine.GroupResource, name string) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.names[gr.Resource+"."+gr.Group] {
		return nil
	}
	const why = "create not allowed while custom resource definition is terminating"
	msg := fmt.Sprintf("%s %q is forbidden: %s", gr, name, why)
	if name == "" {
		msg = fmt.Sprintf("%s is forbidden: %s", gr, why)
	}
	return &engine.Error{Code: engine.CodeForbidden, Group: gr.Group, Kind: gr.Resource, Name: name, Message: msg}
}
