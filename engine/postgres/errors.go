package postgres

import (
	"errors"
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// uniqueViolation is the SQLSTATE of a duplicate key.
const uniqueViolation = "23505"

// maxGapRetries bounds the retries of a write that collided with a GAP event.
const maxGapRetries = 5

// translate maps database errors to engine errors for key, and wraps the
// others as "verb key: err" (rendered as internal errors).
func translate(verb string, key engine.ObjectKey, err error) error {
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return engine.NewNotFound(key.Resource, key.Name)
	case errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "objects_pkey":
		return engine.NewAlreadyExists(key.Resource, key.Name)
	}
	return fmt.Errorf("%s %s %s/%s: %w", verb, key.Resource, key.Namespace, key.Name, err)
}

// isGapCollision reports whether err is a duplicate resourceVersion in the
// events log.
func isGapCollision(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "events_pkey"
}

// retryGaps runs one write statement, again if it collided with a GAP event.
//
// Why: a poller fills every resourceVersion the log lacks with a GAP
// event (see fillSQL). It waits for a write whose event row is in flight,
// but a write that took its resourceVersion and has not inserted its event
// yet loses the race: its insert fails on the events key, the statement is
// rolled back whole, and it runs again with a new resourceVersion.
func retryGaps(write func() error) error {
	for attempt := 0; ; attempt++ {
		err := write()
		if attempt == maxGapRetries || !isGapCollision(err) {
			return err
		}
	}
}

// namespaceNotFound is the error for a write into a missing namespace.
func namespaceNotFound(ns string) error {
	return &engine.Error{Code: engine.CodeNotFound, Kind: "namespaces", Name: ns,
		Message: fmt.Sprintf("namespaces %q not found", ns)}
}

// namespaceTerminating is kube-apiserver's answer to a create in a
// namespace being deleted (its NamespaceLifecycle admission plugin).
func namespaceTerminating(key engine.ObjectKey) error {
	return &engine.Error{Code: engine.CodeForbidden, Group: key.Resource.Group, Kind: key.Resource.Resource, Name: key.Name,
		Message: fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated",
			key.Resource, key.Name, key.Namespace),
		Causes: []engine.FieldError{{Type: "NamespaceTerminating", Path: "metadata.namespace",
			Message: fmt.Sprintf("namespace %s is being terminated", key.Namespace)}}}
}

// isUndefinedTable reports a statement on a table that does not exist
// (SQLSTATE 42P01), as before migrations ran.
func isUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}
