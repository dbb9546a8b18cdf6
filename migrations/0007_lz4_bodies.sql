-- A row over about 2 kB is compressed before it is stored: every update's
-- and delete's event (two bodies), and an object whose managedFields and
-- annotations take it past that. PostgreSQL compresses with pglz unless
-- told otherwise; lz4 compresses and decompresses several times faster for
-- about the same size. Measured with the load tool (durable PostgreSQL 15,
-- 20,000 Widgets, rounds alternating): updates 2,115-2,133/s with pglz and
-- 2,369-2,496/s with lz4, merge patches 1,734-1,947/s and 2,138-2,141/s.
-- Only a server built with lz4 has it (Debian's, the official images';
-- pg_settings lists it then): elsewhere the tables keep pglz. Values
-- already stored stay as they were compressed.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE objects ALTER COLUMN body SET COMPRESSION lz4;
        ALTER TABLE events ALTER COLUMN body SET COMPRESSION lz4, ALTER COLUMN prev_body SET COMPRESSION lz4;
    END IF;
END
$$;
