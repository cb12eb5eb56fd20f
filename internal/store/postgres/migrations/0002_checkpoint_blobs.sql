-- Checkpoint file contents, content-addressed by their sha256 (hex) and
-- stored once whatever number of checkpoints refer to them: on
-- PostgreSQL the blobs live in the database, so every replica of a team
-- server reads what another wrote without sharing a disk.
CREATE TABLE checkpoint_blobs (
    hash       TEXT COLLATE "C" PRIMARY KEY,
    data       BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
-- Blob contents are already compressed by TOAST when they compress;
-- EXTERNAL would skip that, so the default (EXTENDED) stays.
