-- The id the model provider (or the Claude Code CLI) gave a message. Stored
-- ids are always tandem's own: providers may reuse theirs across
-- conversations.
ALTER TABLE messages ADD COLUMN provider_id TEXT NOT NULL DEFAULT '';
