-- What an object's stored version could not hold of it, kept beside the
-- body and never shown: conversion puts it back when the object is read in a
-- version that holds it (see engine/convert). NULL when nothing was lost.
ALTER TABLE objects ADD COLUMN remainder jsonb;

-- The same for the log, before and after each write, so that watchers and
-- lists at an older resourceVersion convert events without loss.
ALTER TABLE events ADD COLUMN remainder jsonb, ADD COLUMN prev_remainder jsonb;
