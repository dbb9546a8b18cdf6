-- The service-account signing key dynapi generates when no
-- --service-account-signing-key-file is given (engine/serviceaccount):
-- kept in the database so that every process serving it signs with the
-- same key and verifies every other's tokens. One row per key name; the
-- first process to start inserts it, the others read it.
CREATE TABLE service_account_keys (
    name text PRIMARY KEY,
    private_key text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
