package postgres

import (
	"fmt"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// freshWait bounds how long a read waits for a resourceVersion its process
// has not reached yet, as kube-apiserver's watch cache does (tests shorten
// it through Store.freshWait).
const freshWait = 3 * time.Second

// tooLarge is kube-apiserver's error for a resourceVersion that was not
// reached in time: a 504 that clients retry.
func tooLarge(rv, current int64) error {
	return &engine.Error{Code: engine.CodeTimeout, RetryAfterSeconds: 1,
		Message: fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", rv, current),
		Causes:  []engine.FieldError{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}}
}

// tooOldWatch is the Expired error of a watch from a compacted resourceVersion.
func tooOldWatch(rv, horizon int64) error {
	return engine.Errorf(engine.CodeExpired, "too old resource version: %d (%d)", rv, horizon)
}

// tooOldList is the Expired error of a list at a compacted resourceVersion.
func tooOldList() error {
	return engine.Errorf(engine.CodeExpired, "The resourceVersion for the provided list is too old.")
}

// continueExpired is the Expired error of a continue token whose
// resourceVersion was compacted; fresh continues from the same key at the
// current state, as kube-apiserver offers.
func continueExpired(fresh string) error {
	return &engine.Error{Code: engine.CodeExpired, Continue: fresh, Message: "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without the continue parameter, or use the " +
		"continue token in this response to retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, modified, or deleted between the time " +
		"the first chunk was returned and now may show up in the list."}
}
