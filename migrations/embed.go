// Package migrations holds dynapi's PostgreSQL schema as numbered SQL files,
// applied in name order by postgres.Migrate, each in its own transaction.
// Migrations are forward-only: never edit a file once it has shipped.
package migrations

import "embed"

// FS holds every *.sql migration file of this directory.
//
//go:embed *.sql
var FS embed.FS
