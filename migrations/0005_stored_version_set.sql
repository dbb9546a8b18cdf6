-- Every object is stored in a version: without it, reads cannot convert the
-- body and the remainder is lost. A write that forgot it (the namespace
-- finalizer once did) fails here instead of corrupting the row. NOT VALID:
-- rows written before are not checked, so the migration cannot fail on
-- them; `dynapi migrate` reports such rows under an empty version.
ALTER TABLE objects ADD CONSTRAINT objects_stored_version_set CHECK (stored_version <> '') NOT VALID;
