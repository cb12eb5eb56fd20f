package postgres

import (
	_ "embed" // the queries
)

// Every SQL statement the PostgreSQL backend runs is a file under
// queries/, embedded here (the schema's are the migrations). A query that
// reads whole sessions writes /*session_columns*/ where scanSession's
// columns go (session_columns.sql).

//go:embed queries/acquire_lease.sql
var acquireLeaseSQL string

//go:embed queries/acquire_lease_2.sql
var acquireLease2SQL string

//go:embed queries/acquire_lease_3.sql
var acquireLease3SQL string

//go:embed queries/add_checkpoint_files.sql
var addCheckpointFilesSQL string

//go:embed queries/add_grant.sql
var addGrantSQL string

//go:embed queries/add_grant_2.sql
var addGrant2SQL string

//go:embed queries/add_workspace.sql
var addWorkspaceSQL string

//go:embed queries/add_workspace_2.sql
var addWorkspace2SQL string

//go:embed queries/append_insert.sql
var appendInsertSQL string

//go:embed queries/append_totals.sql
var appendTotalsSQL string

//go:embed queries/blob.sql
var blobSQL string

//go:embed queries/checkpoint_hashes.sql
var checkpointHashesSQL string

//go:embed queries/checkpoints.sql
var checkpointsSQL string

//go:embed queries/checkpoints_2.sql
var checkpoints2SQL string

//go:embed queries/children.sql
var childrenSQL string

//go:embed queries/collect_blobs.sql
var collectBlobsSQL string

//go:embed queries/create_checkpoint.sql
var createCheckpointSQL string

//go:embed queries/create_checkpoint_2.sql
var createCheckpoint2SQL string

//go:embed queries/create_session.sql
var createSessionSQL string

//go:embed queries/delete_grant.sql
var deleteGrantSQL string

//go:embed queries/delete_session.sql
var deleteSessionSQL string

//go:embed queries/delete_workspace.sql
var deleteWorkspaceSQL string

//go:embed queries/drop_empty_checkpoint.sql
var dropEmptyCheckpointSQL string

//go:embed queries/get_session.sql
var getSessionSQL string

//go:embed queries/get_session_2.sql
var getSession2SQL string

//go:embed queries/info.sql
var infoSQL string

//go:embed queries/known_files.sql
var knownFilesSQL string

//go:embed queries/latest_session.sql
var latestSessionSQL string

//go:embed queries/list_grants.sql
var listGrantsSQL string

//go:embed queries/list_grants_2.sql
var listGrants2SQL string

//go:embed queries/list_sessions.sql
var listSessionsSQL string

//go:embed queries/list_sessions_2.sql
var listSessions2SQL string

//go:embed queries/list_workspaces.sql
var listWorkspacesSQL string

//go:embed queries/lock_session.sql
var lockSessionSQL string

//go:embed queries/messages.sql
var messagesSQL string

//go:embed queries/meta.sql
var metaSQL string

//go:embed queries/migrate.sql
var migrateSQL string

//go:embed queries/migrate_2.sql
var migrate2SQL string

//go:embed queries/migrate_3.sql
var migrate3SQL string

//go:embed queries/migrate_4.sql
var migrate4SQL string

//go:embed queries/missing_blobs.sql
var missingBlobsSQL string

//go:embed queries/open.sql
var openSQL string

//go:embed queries/prune_checkpoints.sql
var pruneCheckpointsSQL string

//go:embed queries/put_blob.sql
var putBlobSQL string

//go:embed queries/put_meta.sql
var putMetaSQL string

//go:embed queries/lease_get.sql
var leaseGetSQL string

//go:embed queries/queue_known.sql
var queueKnownSQL string

//go:embed queries/release_lease.sql
var releaseLeaseSQL string

//go:embed queries/renew_lease.sql
var renewLeaseSQL string

//go:embed queries/resolve_prefix.sql
var resolvePrefixSQL string

//go:embed queries/rewind_conversation.sql
var rewindConversationSQL string

//go:embed queries/rewind_conversation_2.sql
var rewindConversation2SQL string

//go:embed queries/rewind_conversation_3.sql
var rewindConversation3SQL string

//go:embed queries/rewind_conversation_4.sql
var rewindConversation4SQL string

//go:embed queries/rewound_message_count.sql
var rewoundMessageCountSQL string

//go:embed queries/schema_version.sql
var schemaVersionSQL string

//go:embed queries/schema_version_2.sql
var schemaVersion2SQL string

//go:embed queries/session_columns.sql
var sessionColumnsSQL string

//go:embed queries/session_exists.sql
var sessionExistsSQL string

//go:embed queries/set_meta.sql
var setMetaSQL string

//go:embed queries/stored_message.sql
var storedMessageSQL string

//go:embed queries/update_session.sql
var updateSessionSQL string

//go:embed queries/events_insert.sql
var eventsInsertSQL string

//go:embed queries/lease_held.sql
var leaseHeldSQL string

//go:embed queries/events_after.sql
var eventsAfterSQL string

//go:embed queries/events_last.sql
var eventsLastSQL string

//go:embed queries/events_notify.sql
var eventsNotifySQL string

//go:embed queries/events_listen.sql
var eventsListenSQL string

//go:embed queries/replica_put.sql
var replicaPutSQL string

//go:embed queries/replicas_list.sql
var replicasListSQL string

//go:embed queries/replica_delete.sql
var replicaDeleteSQL string

//go:embed queries/bridge_binding_put.sql
var bridgeBindingPutSQL string

//go:embed queries/bridge_binding_get.sql
var bridgeBindingGetSQL string

//go:embed queries/bridge_binding_delete.sql
var bridgeBindingDeleteSQL string

//go:embed queries/bridge_update_take.sql
var bridgeUpdateTakeSQL string

//go:embed queries/bridge_updates_prune.sql
var bridgeUpdatesPruneSQL string
