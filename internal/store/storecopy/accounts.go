package storecopy

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// accounts adds the team's accounts PostgreSQL does not have, in one
// transaction: users (by id) with their token hashes (the tokens
// themselves were never stored), workspace roles, session owners, the
// audit log and each user's daily spend. A user whose name or sign-in
// subject PostgreSQL gives to another user is not copied, nor is
// anything of theirs: it is named in the report, for an admin to settle.
// Browser sign-ins are not copied: they last hours, and a signed-out
// browser signs in again.
func (c *copier) accounts(ctx context.Context) error {
	users, err := c.table(ctx, `SELECT id, name, email, subject, admin, disabled, created_at FROM users ORDER BY name`)
	if err != nil {
		return fmt.Errorf("read users: %w", err)
	}
	for _, u := range users { // SQLite's 0/1, PostgreSQL's BOOLEAN
		u[4], u[5] = u[4] != int64(0), u[5] != int64(0)
	}
	tokens, err := c.table(ctx, `SELECT hash, user_id, created_at FROM user_tokens`)
	if err != nil {
		return fmt.Errorf("read tokens: %w", err)
	}
	// A workspace is found by its path: PostgreSQL may have registered
	// the same folder under another id.
	members, err := c.table(ctx, `SELECT w.path, m.user_id, m.role FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id`)
	if err != nil {
		return fmt.Errorf("read workspace members: %w", err)
	}
	owners, err := c.table(ctx, `SELECT session_id, user_id FROM session_owners`)
	if err != nil {
		return fmt.Errorf("read session owners: %w", err)
	}
	audit, err := c.table(ctx, `SELECT id, at, actor, action, target, detail FROM audit_log`)
	if err != nil {
		return fmt.Errorf("read the audit log: %w", err)
	}
	spend, err := c.table(ctx, `SELECT user_id, day, usd FROM user_spend`)
	if err != nil {
		return fmt.Errorf("read spend: %w", err)
	}
	return c.dst.CopyTx(ctx, func(tx pgx.Tx) error {
		added := map[string]bool{} // users inserted now: their tokens follow
		ours := map[string]bool{}  // users PostgreSQL holds under the same id
		for _, u := range users {
			tag, err := tx.Exec(ctx, `INSERT INTO users (id, name, email, subject, admin, disabled, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, u...)
			if err != nil {
				return fmt.Errorf("write user %s: %w", u[1], err)
			}
			id := u[0].(string)
			if tag.RowsAffected() == 1 {
				added[id], ours[id] = true, true
				c.rep.Users++
				continue
			}
			var same bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1 AND name = $2)`, id, u[1]).Scan(&same); err != nil {
				return err
			}
			if same {
				ours[id] = true
			} else {
				c.rep.UserConflicts = append(c.rep.UserConflicts, fmt.Sprint(u[1]))
			}
		}
		for _, t := range tokens {
			if added[t[1].(string)] {
				if _, err := tx.Exec(ctx, `INSERT INTO user_tokens (hash, user_id, created_at) VALUES ($1, $2, $3)
					ON CONFLICT DO NOTHING`, t...); err != nil {
					return fmt.Errorf("write the token of user %s: %w", t[1], err)
				}
			}
		}
		for _, m := range members {
			if !ours[m[1].(string)] {
				continue
			}
			tag, err := tx.Exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role)
				SELECT id, $2, $3 FROM workspaces WHERE path = $1 ON CONFLICT DO NOTHING`, m...)
			if err != nil {
				return fmt.Errorf("write the role of user %s in %s: %w", m[1], m[0], err)
			}
			c.rep.Members += int(tag.RowsAffected())
		}
		for _, o := range owners {
			if !ours[o[1].(string)] {
				continue
			}
			tag, err := tx.Exec(ctx, `INSERT INTO session_owners (session_id, user_id)
				SELECT id, $2 FROM sessions WHERE id = $1 ON CONFLICT DO NOTHING`, o...)
			if err != nil {
				return fmt.Errorf("write the owner of session %s: %w", o[0], err)
			}
			c.rep.Owners += int(tag.RowsAffected())
		}
		for _, a := range audit {
			tag, err := tx.Exec(ctx, `INSERT INTO audit_log (id, at, actor, action, target, detail)
				VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, a...)
			if err != nil {
				return fmt.Errorf("write audit entry %s: %w", a[0], err)
			}
			c.rep.Audit += int(tag.RowsAffected())
		}
		for _, s := range spend {
			if !ours[s[0].(string)] {
				continue
			}
			if _, err := tx.Exec(ctx, `INSERT INTO user_spend (user_id, day, usd) VALUES ($1, $2, $3)
				ON CONFLICT DO NOTHING`, s...); err != nil {
				return fmt.Errorf("write the spend of user %s: %w", s[0], err)
			}
		}
		return nil
	})
}

// table reads a query's rows whole (TEXT that SQLite hands back as bytes
// made strings again).
func (c *copier) table(ctx context.Context, q string) ([][]any, error) {
	rows, err := c.src.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}
