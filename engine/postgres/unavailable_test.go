package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestIsUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"administrator shut the session", &pgconn.PgError{Code: "57P01"}, true},
		{"crash of another backend", &pgconn.PgError{Code: "57P02"}, true},
		{"the database is starting", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"broken socket, wrapped", fmt.Errorf("create x: %w", &net.OpError{Op: "write", Err: errors.New("broken pipe")}), true},
		{"end of stream", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"closed connection", pgconn.ErrConnClosed, true},
		{"unique violation", &pgconn.PgError{Code: uniqueViolation}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, false},
		{"cancelled by the client", context.Canceled, false},
		{"anything else", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnavailable(tt.err); got != tt.want {
				t.Errorf("IsUnavailable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
