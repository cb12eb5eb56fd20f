package sqlite

import (
	_ "embed" // the queries
)

// The statements of the accounts (accounts.go), one file each under
// queries/account_*.sql.

//go:embed queries/account_audit_insert.sql
var accountAuditInsertSQL string

//go:embed queries/account_audit_list.sql
var accountAuditListSQL string

//go:embed queries/account_member_delete.sql
var accountMemberDeleteSQL string

//go:embed queries/account_member_put.sql
var accountMemberPutSQL string

//go:embed queries/account_members_list.sql
var accountMembersListSQL string

//go:embed queries/account_memberships_list.sql
var accountMembershipsListSQL string

//go:embed queries/account_owner_get.sql
var accountOwnerGetSQL string

//go:embed queries/account_owner_put.sql
var accountOwnerPutSQL string

//go:embed queries/account_spend_add.sql
var accountSpendAddSQL string

//go:embed queries/account_spend_get.sql
var accountSpendGetSQL string

//go:embed queries/account_token_insert.sql
var accountTokenInsertSQL string

//go:embed queries/account_tokens_delete.sql
var accountTokensDeleteSQL string

//go:embed queries/account_user_by_subject.sql
var accountUserBySubjectSQL string

//go:embed queries/account_user_by_token.sql
var accountUserByTokenSQL string

//go:embed queries/account_user_get.sql
var accountUserGetSQL string

//go:embed queries/account_user_insert.sql
var accountUserInsertSQL string

//go:embed queries/account_user_update.sql
var accountUserUpdateSQL string

//go:embed queries/account_users_list.sql
var accountUsersListSQL string
