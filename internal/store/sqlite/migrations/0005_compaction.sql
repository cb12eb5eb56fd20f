-- Compaction boundaries are messages of their own kind, so they sit at a
-- position in the conversation (truncating after a position drops the
-- boundaries past it) and sessions show/export keep everything.
ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT '';
-- JSON of message.Compaction for kind = 'compaction', NULL otherwise.
ALTER TABLE messages ADD COLUMN compaction TEXT;
