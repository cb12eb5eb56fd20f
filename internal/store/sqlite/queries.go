package sqlite

import (
	_ "embed" // the queries
	"strings"
)

// Every SQL statement the SQLite backend runs is a file under queries/,
// embedded here (the schema's are the migrations). A query that reads
// whole sessions writes /*session_columns*/ where scanSession's columns go.

//go:embed queries/checkpoint_drop_empty.sql
var checkpointDropEmptySQL string

//go:embed queries/checkpoint_file_insert.sql
var checkpointFileInsertSQL string

//go:embed queries/checkpoint_files_list.sql
var checkpointFilesListSQL string

//go:embed queries/checkpoint_hashes.sql
var checkpointHashesSQL string

//go:embed queries/checkpoint_insert.sql
var checkpointInsertSQL string

//go:embed queries/checkpoint_next.sql
var checkpointNextSQL string

//go:embed queries/checkpoints_drop_from.sql
var checkpointsDropFromSQL string

//go:embed queries/checkpoints_list.sql
var checkpointsListSQL string

//go:embed queries/checkpoints_prune.sql
var checkpointsPruneSQL string

//go:embed queries/grant_delete.sql
var grantDeleteSQL string

//go:embed queries/grant_get.sql
var grantGetSQL string

//go:embed queries/grant_insert.sql
var grantInsertSQL string

//go:embed queries/grants_list.sql
var grantsListSQL string

//go:embed queries/grants_list_scope.sql
var grantsListScopeSQL string

//go:embed queries/known_list.sql
var knownListSQL string

//go:embed queries/known_put.sql
var knownPutSQL string

//go:embed queries/lease_get.sql
var leaseGetSQL string

//go:embed queries/lease_put.sql
var leasePutSQL string

//go:embed queries/lease_release.sql
var leaseReleaseSQL string

//go:embed queries/lease_renew.sql
var leaseRenewSQL string

//go:embed queries/message_insert.sql
var messageInsertSQL string

//go:embed queries/message_totals.sql
var messageTotalsSQL string

//go:embed queries/messages_list.sql
var messagesListSQL string

//go:embed queries/messages_truncate.sql
var messagesTruncateSQL string

//go:embed queries/meta_get.sql
var metaGetSQL string

//go:embed queries/meta_put.sql
var metaPutSQL string

//go:embed queries/quick_check.sql
var quickCheckSQL string

//go:embed queries/rewound_count.sql
var rewoundCountSQL string

//go:embed queries/rewound_insert.sql
var rewoundInsertSQL string

//go:embed queries/schema_has_migrations.sql
var schemaHasMigrationsSQL string

//go:embed queries/schema_migration_done.sql
var schemaMigrationDoneSQL string

//go:embed queries/schema_migration_record.sql
var schemaMigrationRecordSQL string

//go:embed queries/schema_migrations_create.sql
var schemaMigrationsCreateSQL string

//go:embed queries/schema_versions.sql
var schemaVersionsSQL string

//go:embed queries/session_children.sql
var sessionChildrenSQL string

//go:embed queries/session_columns.sql
var sessionColumnsSQL string

//go:embed queries/session_delete.sql
var sessionDeleteSQL string

//go:embed queries/session_exists.sql
var sessionExistsSQL string

//go:embed queries/session_get.sql
var sessionGetSQL string

//go:embed queries/session_insert.sql
var sessionInsertSQL string

//go:embed queries/session_latest.sql
var sessionLatestSQL string

//go:embed queries/session_list.sql
var sessionListSQL string

//go:embed queries/session_list_cwd.sql
var sessionListCwdSQL string

//go:embed queries/session_prefix.sql
var sessionPrefixSQL string

//go:embed queries/session_recount.sql
var sessionRecountSQL string

//go:embed queries/session_update.sql
var sessionUpdateSQL string

//go:embed queries/workspace_by_path.sql
var workspaceByPathSQL string

//go:embed queries/workspace_delete.sql
var workspaceDeleteSQL string

//go:embed queries/workspace_insert.sql
var workspaceInsertSQL string

//go:embed queries/workspaces_list.sql
var workspacesListSQL string

// withSessionColumns fills /*session_columns*/ in q with the columns
// scanSession reads, in its order.
func withSessionColumns(q string) string {
	return strings.Replace(q, "/*session_columns*/", strings.TrimSpace(sessionColumnsSQL), 1)
}

//go:embed queries/events_insert.sql
var eventsInsertSQL string

//go:embed queries/lease_held.sql
var leaseHeldSQL string

//go:embed queries/events_after.sql
var eventsAfterSQL string

//go:embed queries/events_last.sql
var eventsLastSQL string

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
