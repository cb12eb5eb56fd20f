// Package storetest is the conformance suite every store backend passes:
// the behaviour internal/store documents, checked through the contract
// alone (prefix matching, ordering, totals, titles, leases and takeover,
// busy errors, rewind truncation, compaction boundaries, sub-agents,
// checkpoints, grants, workspaces, meta, concurrent writers on two
// handles). A backend's own test calls Run; what only one backend can
// have (SQLite's file locking, a full disk, a killed writer) is tested in
// that backend's package.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// DB opens a handle on one test's database; now is the handle's clock
// (nil: the real time). Every call on the same DB reaches the same data,
// as two processes or two server replicas would. The backend closes the
// handles when the test ends (a test may close one earlier).
type DB func(now func() time.Time) store.Store

// NewDB makes an empty database for one test.
type NewDB func(t *testing.T) DB

// Options say what a backend can have that another cannot; a test of a
// capability the backend lacks is skipped, saying so.
type Options struct {
	// DiskFull makes an empty database on a disk of its own; fill fills
	// that disk and free gives the space back. Nil: the backend has no
	// disk that tandem's writes can fill (a database server's).
	DiskFull func(t *testing.T) (db DB, fill, free func())
}

// tests are the suite, by name.
var tests = []struct {
	name string
	run  func(t *testing.T, db DB)
}{
	{"CreateAndGetSession", testCreateAndGetSession},
	{"SessionIDsSortByCreation", testSessionIDsSortByCreation},
	{"GetSessionNotFound", testGetSessionNotFound},
	{"GetSessionByPrefix", testGetSessionByPrefix},
	{"RefusesBadSessionIDs", testRefusesBadSessionIDs},
	{"ListSessionsOrderAndPaging", testListSessionsOrderAndPaging},
	{"UpdateSession", testUpdateSession},
	{"LastSeqOnlyRises", testLastSeqOnlyRises},
	{"ParentMustExist", testParentMustExist},
	{"DeleteSessionCascades", testDeleteSessionCascades},
	{"Meta", testMeta},
	{"MessageRoundTripEveryBlock", testMessageRoundTripEveryBlock},
	{"MessagesOrderAndTotals", testMessagesOrderAndTotals},
	{"UnpricedUserMessageKeepsCostKnown", testUnpricedUserMessageKeepsCostKnown},
	{"TitleFromFirstUserMessage", testTitleFromFirstUserMessage},
	{"AppendToMissingSession", testAppendToMissingSession},
	{"AppendDuplicateIDFailsCleanly", testAppendDuplicateIDFailsCleanly},
	{"AppendAfterCloseFails", testAppendAfterCloseFails},
	{"CompactionBoundaryRoundTrip", testCompactionBoundaryRoundTrip},
	{"LeaseOneHolderAtATime", testLeaseOneHolderAtATime},
	{"LeaseTakenOverWhenExpiredOrHolderDead", testLeaseTakenOverWhenExpiredOrHolderDead},
	{"RewindConversationCutsByPosition", testRewindConversationCutsByPosition},
	{"PruneCheckpointsKeepsNewest", testPruneCheckpointsKeepsNewest},
	{"RewindConversationDropsLaterCompactionBoundaries", testRewindConversationDropsLaterCompactionBoundaries},
	{"ChildKeepsParentToolUseAcrossReopen", testChildKeepsParentToolUseAcrossReopen},
	{"SubagentRunsFollowCalls", testSubagentRunsFollowCalls},
	{"Workspaces", testWorkspaces},
	{"Grants", testGrants},
	{"BridgeBindings", testBridgeBindings},
	{"BridgeUpdatesTakenOnce", testBridgeUpdatesTakenOnce},
	{"UsersAndTokens", testUsersAndTokens},
	{"MembersAndOwners", testMembersAndOwners},
	{"AuditAndSpend", testAuditAndSpend},
	{"WebSessions", testWebSessions},
	{"ConcurrentWritersTwoStores", testConcurrentWritersTwoStores},
	{"EventsLog", testEventsLog},
	{"EventsHeldByLease", testEventsHeldByLease},
	{"WatchEventsWakes", testWatchEventsWakes},
	{"ReplicaHeartbeats", testReplicaHeartbeats},
	{"PermissionAnswers", testPermissionAnswers},
	{"UserTurns", testUserTurns},
}

// Run runs the suite, each test on a fresh database from newDB; opts
// (at most one) name the backend's capabilities, none: no disk to fill.
func Run(t *testing.T, newDB NewDB, opts ...Options) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newDB(t)) })
	}
	t.Run("DiskFullIsClearAndRecovers", func(t *testing.T) {
		if o.DiskFull == nil {
			t.Skip("the backend has no disk of its own to fill")
		}
		testDiskFull(t, o.DiskFull)
	})
}

func newSession(t testing.TB, s store.Store, cwd string) store.Session {
	t.Helper()
	sess, err := s.CreateSession(context.Background(), store.Session{Cwd: cwd, Model: "anthropic/claude", Runtime: "native"})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func ptr[T any](v T) *T { return &v }
