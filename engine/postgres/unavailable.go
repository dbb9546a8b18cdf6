package postgres

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err says the database could not be
// reached or went away in the middle of a statement, rather than that the
// statement was wrong: a failed connection, a broken socket, or PostgreSQL
// ending the session (SQLSTATE class 08, or 57P01–57P03 during a shutdown,
// a crash or a start). Such a request may succeed if sent again, so the
// HTTP layer answers it 503 with Retry-After, not 500. A statement cut off
// so may or may not have committed: a client that retries a create can
// meet its own object (409), as with any lost answer.
func IsUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) || pgconn.SafeToRetry(err)
}
