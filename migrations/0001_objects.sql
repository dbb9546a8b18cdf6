-- Objects, their history, and the one cluster-wide resourceVersion.

-- resource_version is the single, strictly increasing counter every write
-- takes its resourceVersion from, like etcd's revision. Rolled-back writes
-- leave gaps; readers of the events log must tolerate them. Keep CACHE 1
-- (the default): a per-session cache would hand numbers out of order.
CREATE SEQUENCE resource_version AS bigint CACHE 1;

-- objects holds the current state of every object. Keys use the "C"
-- collation so that list order (namespace, name) is byte order, the same on
-- every server whatever its locale, as etcd orders keys.
CREATE TABLE objects (
    resource         text COLLATE "C" NOT NULL, -- "resource.group", or "resource" for the core group
    namespace        text COLLATE "C" NOT NULL DEFAULT '',
    name             text COLLATE "C" NOT NULL,
    uid              uuid,
    resource_version bigint NOT NULL,
    stored_version   text NOT NULL,
    body             jsonb NOT NULL, -- metadata.resourceVersion always equals resource_version
    labels           jsonb NOT NULL DEFAULT '{}', -- copy of metadata.labels
    PRIMARY KEY (resource, namespace, name)
);

-- Label selectors: = and in use labels @> '{"k":"v"}'. jsonb_path_ops
-- indexes each key-value pair as one entry, so a selector matching 1% of
-- 100k objects reads 1k entries (jsonb_ops would intersect the 100k-entry
-- list of the key with that of the value: ~40 times slower).
CREATE INDEX objects_labels ON objects USING gin (labels jsonb_path_ops);

-- label_keys returns the keys of a labels object as a JSON array.
-- jsonb_path_ops cannot answer "has key k", so exists selectors use
-- label_keys(labels) @> '["k"]'. A single immutable expression: the planner
-- inlines it, in the index as in queries, instead of calling a function.
CREATE FUNCTION label_keys(labels jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT jsonb_path_query_array(labels, '$.keyvalue().key') $$;

CREATE INDEX objects_label_keys ON objects USING gin (label_keys(labels) jsonb_path_ops);

-- events is the history log: one row per write, in resourceVersion order.
-- GAP rows (no object) are written by the watch poller to fill a
-- resourceVersion that no transaction will ever commit.
CREATE TABLE events (
    resource_version      bigint PRIMARY KEY,
    resource              text COLLATE "C" NOT NULL DEFAULT '',
    namespace             text COLLATE "C" NOT NULL DEFAULT '',
    name                  text COLLATE "C" NOT NULL DEFAULT '',
    type                  text NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED', 'GAP')),
    body                  jsonb, -- new state; for DELETED the last state
    prev_body             jsonb, -- state before the write; null for ADDED
    prev_resource_version bigint,
    stored_version        text,
    prev_stored_version   text,
    created_at            timestamptz NOT NULL DEFAULT now()
);

-- For compaction, which deletes events older than the retention window.
CREATE INDEX events_created_at ON events (created_at);

-- with_resource_version returns body with metadata.resourceVersion set to
-- rv, as a string as Kubernetes renders it. STABLE (as jsonb_build_object
-- is) and a single SELECT, so the planner inlines it.
CREATE FUNCTION with_resource_version(body jsonb, rv bigint) RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
SELECT jsonb_set(body, '{metadata}',
    coalesce(body -> 'metadata', '{}') || jsonb_build_object('resourceVersion', rv::text))
$$;

-- Watchers LISTEN on dynapi_events. One notification per statement is enough:
-- they read the log from their last resourceVersion. PostgreSQL delivers it
-- on commit, and folds identical notifications of one transaction into one.
-- Cost: committing a transaction that notified takes a database-wide lock
-- held through the commit's WAL flush, so notifying writes cannot share
-- flushes (group commit); measured with durable commits, this halves
-- create throughput. The watch issue may prefer notifying outside writes.
CREATE FUNCTION notify_events() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('dynapi_events', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER events_notify
    AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events();
