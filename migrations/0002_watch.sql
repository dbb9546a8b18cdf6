-- Watch without a notifying trigger, and compaction of the events log.

-- The statement-level NOTIFY trigger of 0001 made every commit that wrote
-- an event take the database-wide notify lock through its WAL flush, so
-- writes could not share flushes (group commit): it halved durable create
-- throughput. A Store now wakes its own watchers in-process and notifies
-- the other processes itself, at most one notification in flight.
DROP TRIGGER events_notify ON events;
DROP FUNCTION notify_events();

-- compaction records the highest resourceVersion whose event may have been
-- deleted: history at or below it is gone, every event above it is kept.
-- It is raised before the events are deleted, so a reader that sees events
-- missing also sees the new horizon. A single row.
CREATE TABLE compaction (
    single  boolean PRIMARY KEY DEFAULT true CHECK (single),
    horizon bigint NOT NULL
);
INSERT INTO compaction (horizon) VALUES (0);
