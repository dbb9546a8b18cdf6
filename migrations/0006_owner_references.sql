-- Garbage collection of ownerReferences (engine/gc) asks three questions
-- of the objects table, each answered through an index so that a pass
-- costs what the dependents and the objects being deleted cost, never the
-- whole table (it must work at 1,000,000 objects).

-- Which object has this uid: an owner exists.
CREATE INDEX objects_uid ON objects (uid);

-- owner_uids returns the uids an object's ownerReferences name, as a JSON
-- array. A single immutable expression, as label_keys, so that the planner
-- inlines it in the index and in queries.
CREATE FUNCTION owner_uids(body jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT jsonb_path_query_array(body, '$.metadata.ownerReferences[*].uid') $$;

-- Which objects name this owner: the dependents of an owner. Partial: only
-- objects with ownerReferences have entries.
CREATE INDEX objects_owner_uids ON objects USING gin (owner_uids(body) jsonb_path_ops)
    WHERE (body -> 'metadata') ? 'ownerReferences';

-- Every dependent, in key order: the scan for dependents whose owners are
-- all gone (or never existed) reads these rows only.
CREATE INDEX objects_dependents ON objects (resource, namespace, name)
    WHERE (body -> 'metadata') ? 'ownerReferences';

-- Objects whose deletion waits for the collector: the foregroundDeletion
-- and orphan finalizers.
CREATE INDEX objects_gc_finalizing ON objects (resource, namespace, name)
    WHERE (body -> 'metadata' -> 'finalizers') ?| array['foregroundDeletion', 'orphan'];
