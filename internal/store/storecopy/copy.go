// Package storecopy copies everything tandem stored in its SQLite file
// into a PostgreSQL database (`tandem sessions migrate --to URL`): every
// session with its messages (positions, ids, usage and times as they
// are), meta, checkpoints and their files' contents, known file states
// and rewound messages, the registered workspaces and saved grants, and
// a team's accounts (users with their token hashes, workspace roles,
// session owners, the audit log, daily spend: accounts.go). Leases are not
// copied: they belong to running processes; nor are browser sign-ins.
//
// It can be re-run: a session already copied is replaced by the SQLite
// copy (picking up what was added since), unless it changed in PostgreSQL
// meanwhile (it holds a message the SQLite file does not): then it is left
// as it is and named in the report. Workspaces, grants and accounts are
// added when missing.
package storecopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the SQLite file is read with its driver

	"github.com/tandem-agent/tandem/internal/store/postgres"
)

// Report says what a copy did.
type Report struct {
	Sessions   int      // copied for the first time
	Updated    int      // copied again (the SQLite copy had changed or not)
	Skipped    []string // changed in PostgreSQL since an earlier copy: left alone
	Messages   int      // messages written
	Blobs      int      // checkpoint contents uploaded
	Missing    []string // checkpoint contents the data folder no longer had
	Workspaces int      // added
	Grants     int      // added
	Users      int      // added, with their token hashes
	Members    int      // workspace roles added
	Owners     int      // session owners added
	Audit      int      // audit entries added
	// UserConflicts are users not copied: PostgreSQL gives their name or
	// sign-in subject to another user.
	UserConflicts []string
}

// Source is the SQLite side: the database file, already at the current
// schema (open it with the SQLite store first), and the data folder whose
// checkpoints/blobs hold the checkpoint contents.
type Source struct {
	DBPath  string
	DataDir string
}

// Copy copies src into dst. Each session is copied in a transaction of its
// own, so an interrupted copy leaves whole sessions and a re-run finishes
// it.
func Copy(ctx context.Context, src Source, dst *postgres.Store) (Report, error) {
	var rep Report
	if _, err := os.Stat(src.DBPath); err != nil {
		return rep, fmt.Errorf("copy sessions: %w", err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(src.DBPath), RawQuery: "mode=ro&_busy_timeout=5000"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return rep, fmt.Errorf("copy sessions: open %s: %w", src.DBPath, err)
	}
	defer db.Close()
	c := &copier{src: db, dst: dst, blobDir: filepath.Join(src.DataDir, "checkpoints", "blobs"), rep: &rep}
	ids, err := c.sessionOrder(ctx)
	if err != nil {
		return rep, fmt.Errorf("copy sessions from %s: %w", src.DBPath, err)
	}
	for _, id := range ids {
		if err := c.session(ctx, id); err != nil {
			return rep, fmt.Errorf("copy session %s: %w", id, err)
		}
	}
	if err := c.workspacesAndGrants(ctx); err != nil {
		return rep, err
	}
	if err := c.accounts(ctx); err != nil {
		return rep, fmt.Errorf("copy accounts: %w", err)
	}
	return rep, nil
}

type copier struct {
	src     *sql.DB
	dst     *postgres.Store
	blobDir string
	rep     *Report
}

// sessionOrder lists session ids parents first, so a child's parent_id
// always names a session already copied.
func (c *copier) sessionOrder(ctx context.Context) ([]string, error) {
	rows, err := c.src.QueryContext(ctx, `SELECT id, COALESCE(parent_id, '') FROM sessions ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type node struct{ id, parent string }
	var all []node
	parent := map[string]string{}
	for rows.Next() {
		var n node
		if err := rows.Scan(&n.id, &n.parent); err != nil {
			return nil, err
		}
		all = append(all, n)
		parent[n.id] = n.parent
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	depth := func(id string) int {
		d := 0
		for p := parent[id]; p != "" && d < 64; p = parent[p] {
			d++
		}
		return d
	}
	sort.SliceStable(all, func(i, j int) bool { return depth(all[i].id) < depth(all[j].id) })
	out := make([]string, len(all))
	for i, n := range all {
		out[i] = n.id
	}
	return out, nil
}

// session copies one session in one PostgreSQL transaction.
func (c *copier) session(ctx context.Context, id string) error {
	srcMsgIDs, err := c.column(ctx, `SELECT id FROM messages WHERE session_id = ?`, id)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, m := range srcMsgIDs {
		have[m] = true
	}
	if err := c.uploadBlobs(ctx, id); err != nil {
		return err
	}
	return c.dst.CopyTx(ctx, func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)`, id).Scan(&exists); err != nil {
			return err
		}
		if exists {
			rows, err := tx.Query(ctx, `SELECT id FROM messages WHERE session_id = $1`, id)
			if err != nil {
				return err
			}
			dstIDs, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			for _, m := range dstIDs {
				if !have[m] {
					c.rep.Skipped = append(c.rep.Skipped, id)
					return nil
				}
			}
			for _, table := range []string{"messages", "session_meta", "checkpoints", "checkpoint_known", "rewound_messages", "session_leases"} {
				if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE session_id = $1`, id); err != nil {
					return err
				}
			}
		}
		if err := c.sessionRow(ctx, tx, id, exists); err != nil {
			return err
		}
		n, err := c.rows(ctx, tx, "messages", []string{"id", "session_id", "position", "role", "content", "model",
			"input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens",
			"cost_usd", "created_at", "kind", "compaction", "provider_id"}, id)
		if err != nil {
			return err
		}
		c.rep.Messages += n
		for _, t := range []struct {
			table string
			cols  []string
		}{
			{"session_meta", []string{"session_id", "key", "value"}},
			{"checkpoints", []string{"session_id", "number", "position", "prompt", "created_at", "resume"}},
			{"checkpoint_files", []string{"session_id", "number", "path", "state", "hash", "mode"}},
			{"checkpoint_known", []string{"session_id", "path", "hash"}},
			{"rewound_messages", []string{"session_id", "rewound_at", "id", "position", "role", "content", "model", "created_at", "kind", "compaction"}},
		} {
			if _, err := c.rows(ctx, tx, t.table, t.cols, id); err != nil {
				return err
			}
		}
		if exists {
			c.rep.Updated++
		} else {
			c.rep.Sessions++
		}
		return nil
	})
}

// sessionRow inserts (or, re-run, overwrites) the session's own row.
func (c *copier) sessionRow(ctx context.Context, tx pgx.Tx, id string, exists bool) error {
	var (
		v                                       [19]any
		cwd, title, model, runtime, mode        string
		parent, parentCall                      sql.NullString
		created, updated, in, out, cr, cc, r, n int64
		cost                                    float64
		known                                   int64
		lastSeq                                 int64
	)
	err := c.src.QueryRowContext(ctx, `SELECT cwd, title, model, runtime, mode, parent_id, parent_tool_use_id,
		created_at, updated_at, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
		cost_usd, cost_known, message_count, last_seq FROM sessions WHERE id = ?`, id).
		Scan(&cwd, &title, &model, &runtime, &mode, &parent, &parentCall, &created, &updated, &in, &out, &cr, &cc, &r,
			&cost, &known, &n, &lastSeq)
	if err != nil {
		return err
	}
	v = [19]any{id, cwd, title, model, runtime, mode, nullString(parent), nullString(parentCall), created, updated,
		in, out, cr, cc, r, cost, known != 0, n, lastSeq}
	if exists {
		_, err = tx.Exec(ctx, `UPDATE sessions SET cwd = $2, title = $3, model = $4, runtime = $5, mode = $6,
			parent_id = $7, parent_tool_use_id = $8, created_at = $9, updated_at = $10, input_tokens = $11,
			output_tokens = $12, cache_read_tokens = $13, cache_creation_tokens = $14, reasoning_tokens = $15,
			cost_usd = $16, cost_known = $17, message_count = $18, last_seq = $19 WHERE id = $1`, v[:]...)
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO sessions (id, cwd, title, model, runtime, mode, parent_id, parent_tool_use_id,
		created_at, updated_at, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
		cost_usd, cost_known, message_count, last_seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`, v[:]...)
	return err
}

func nullString(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	return s.String
}

// rows copies a session's rows of one table with COPY, column for column.
func (c *copier) rows(ctx context.Context, tx pgx.Tx, table string, cols []string, id string) (int, error) {
	q := "SELECT "
	for i, col := range cols {
		if i > 0 {
			q += ", "
		}
		q += col
	}
	rows, err := c.src.QueryContext(ctx, q+" FROM "+table+" WHERE session_id = ?", id)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	var data [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return 0, fmt.Errorf("read %s: %w", table, err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok { // SQLite TEXT may come back as bytes
				vals[i] = string(b)
			}
		}
		data = append(data, vals)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	if len(data) == 0 {
		return 0, nil
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(data))
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", table, err)
	}
	return int(n), nil
}

func (c *copier) column(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.src.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// uploadBlobs puts the contents the session's checkpoints refer to into
// the database (those it does not have yet).
func (c *copier) uploadBlobs(ctx context.Context, id string) error {
	hashes, err := c.column(ctx, `SELECT DISTINCT hash FROM checkpoint_files WHERE session_id = ? AND hash != ''`, id)
	if err != nil || len(hashes) == 0 {
		return err
	}
	missing, err := c.dst.MissingBlobs(ctx, hashes)
	if err != nil {
		return err
	}
	for _, h := range missing {
		if len(h) < 3 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.blobDir, h[:2], h[2:]))
		if errors.Is(err, os.ErrNotExist) {
			c.rep.Missing = append(c.rep.Missing, h)
			continue
		}
		if err != nil {
			return fmt.Errorf("read checkpoint content %s: %w", h, err)
		}
		got, err := c.dst.PutBlob(ctx, data)
		if err != nil {
			return err
		}
		if got != h {
			c.rep.Missing = append(c.rep.Missing, h) // damaged on disk: its content is not what was saved
			continue
		}
		c.rep.Blobs++
	}
	return nil
}

// workspacesAndGrants adds the registered workspaces and saved grants
// PostgreSQL does not have (by path; by rule).
func (c *copier) workspacesAndGrants(ctx context.Context) error {
	rows, err := c.src.QueryContext(ctx, `SELECT id, path, name, created_at FROM workspaces`)
	if err != nil {
		return fmt.Errorf("read workspaces: %w", err)
	}
	var ws [][4]any
	for rows.Next() {
		var id, path, name string
		var created int64
		if err := rows.Scan(&id, &path, &name, &created); err != nil {
			rows.Close()
			return err
		}
		ws = append(ws, [4]any{id, path, name, created})
	}
	rows.Close()
	grows, err := c.src.QueryContext(ctx, `SELECT id, scope, tool, pattern, action, created_at FROM permission_grants`)
	if err != nil {
		return fmt.Errorf("read grants: %w", err)
	}
	var gs [][6]any
	for grows.Next() {
		var id, scope, tool, pattern, action string
		var created int64
		if err := grows.Scan(&id, &scope, &tool, &pattern, &action, &created); err != nil {
			grows.Close()
			return err
		}
		gs = append(gs, [6]any{id, scope, tool, pattern, action, created})
	}
	grows.Close()
	return c.dst.CopyTx(ctx, func(tx pgx.Tx) error {
		for _, w := range ws {
			tag, err := tx.Exec(ctx, `INSERT INTO workspaces (id, path, name, created_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT DO NOTHING`, w[:]...)
			if err != nil {
				return fmt.Errorf("write workspace %s: %w", w[1], err)
			}
			c.rep.Workspaces += int(tag.RowsAffected())
		}
		for _, g := range gs {
			tag, err := tx.Exec(ctx, `INSERT INTO permission_grants (id, scope, tool, pattern, action, created_at)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, g[:]...)
			if err != nil {
				return fmt.Errorf("write grant %s: %w", g[0], err)
			}
			c.rep.Grants += int(tag.RowsAffected())
		}
		return nil
	})
}
