-- resource_version_checked returns body when its metadata.resourceVersion
-- is rv, as the splice makes it, and otherwise body through
-- with_resource_version: the server finds the first "metadata" and its
-- first "resourceVersion" while jsonb keeps the last of repeated keys, so
-- a text that repeats them (the write pipeline drops such repeats; a body
-- from elsewhere might not) would store another resourceVersion than the
-- row's. PL/pgSQL, not SQL: a SQL function is inlined, and its argument,
-- the whole parse, would be evaluated once per mention.
CREATE FUNCTION resource_version_checked(body jsonb, rv bigint) RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    AS $$
BEGIN
    IF body -> 'metadata' ->> 'resourceVersion' = rv::text THEN
        RETURN body;
    END IF;
    RETURN with_resource_version(body, rv);
END
$$;

-- body_at_resource_version is a write's body as the row stores it: the
-- body's JSON text (body, UTF-8) with the resourceVersion the statement
-- drew spliced in where the server found its place (engine/meta Slot:
-- slot_at bytes in, slot_cut bytes replaced, slot_prefix before the
-- value), then parsed into jsonb once. with_resource_version rebuilds the
-- parsed jsonb instead: 8-10 µs of PostgreSQL's CPU per 1.8 KB Widget,
-- more than the parse itself (7-9 µs), where the splice and the check
-- below take about 1 µs. A body whose place the server could not tell
-- (slot_at < 0: metadata is not an object) goes through
-- with_resource_version. The text is bytea so that the offsets are bytes
-- whatever the database's encoding.
CREATE FUNCTION body_at_resource_version(body bytea, rv bigint, slot_at integer, slot_cut integer, slot_prefix text)
    RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN slot_at < 0 THEN with_resource_version(convert_from(body, 'UTF8')::jsonb, rv)
    ELSE resource_version_checked(convert_from(
        overlay(body PLACING convert_to(slot_prefix || '"' || rv || '"', 'UTF8') FROM slot_at + 1 FOR slot_cut),
        'UTF8')::jsonb, rv)
END
$$;
