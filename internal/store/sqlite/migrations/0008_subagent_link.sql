-- A sub-agent's session names the tool call (the parent's Agent/Task
-- tool_use id) that started it, so history read back from the store can
-- put the child's steps under that call, as the live events did with
-- parent_tool_use_id. NULL for top-level sessions and for children stored
-- before this column existed.
ALTER TABLE sessions ADD COLUMN parent_tool_use_id TEXT;
CREATE INDEX sessions_parent_tool_use ON sessions (parent_id, parent_tool_use_id) WHERE parent_tool_use_id IS NOT NULL;
