-- A metadata-only list (PartialObjectMetadataList) reads each object's
-- metadata as PostgreSQL has already printed it. Why: printing jsonb as
-- text is most of what such a list costs PostgreSQL, and managedFields
-- make metadata a dense third of a body; cut out and printed at every
-- read, 100,000 objects' metadata took 0.37-0.69 s of PostgreSQL's time,
-- against 0.11-0.25 s for the rows' keys alone. Printed once per write
-- instead, a list copies the text.
--
-- The extra text (about 600 bytes an object with managedFields) takes a
-- row of about 1.3 kB past the 2 kB at which PostgreSQL compresses its
-- largest value, the body, and a full list would then decompress every
-- body: rows up to a page stay as written.
ALTER TABLE objects SET (toast_tuple_target = 8160);
ALTER TABLE objects ADD COLUMN metadata text GENERATED ALWAYS AS ((body -> 'metadata')::text) STORED;
