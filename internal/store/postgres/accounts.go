package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

func scanUser(row pgx.Row) (store.User, error) {
	var u store.User
	var created int64
	if err := row.Scan(&u.ID, &u.Name, &u.Email, &u.Subject, &u.Admin, &u.Disabled, &created); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return store.User{}, store.ErrNotFound
		}
		return store.User{}, err
	}
	u.CreatedAt = backend.FromNanos(created)
	return u, nil
}

// missingRef turns a foreign key refusal into ErrNotFound: the workspace,
// user or session named does not exist.
func missingRef(err error) error {
	if isCode(err, "23503") { // foreign_key_violation
		return store.ErrNotFound
	}
	return err
}

// CreateUser stores a new user; ErrExists when its name or subject is taken.
func (s *Store) CreateUser(ctx context.Context, u store.User) (store.User, error) {
	u, err := backend.PrepareUser(u, s.nowUTC())
	if err != nil {
		return store.User{}, err
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, accountUserInsertSQL, u.ID, u.Name, u.Email, u.Subject, u.Admin, u.Disabled, backend.Nanos(u.CreatedAt))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return store.ErrExists
		}
		return nil
	})
	if err != nil {
		return store.User{}, fmt.Errorf("add user %s: %w", u.Name, err)
	}
	return u, nil
}

// GetUser finds a user by id or name.
func (s *Store) GetUser(ctx context.Context, idOrName string) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, accountUserGetSQL, idOrName, idOrName))
	if err != nil {
		return store.User{}, fmt.Errorf("user %s: %w", idOrName, err)
	}
	return u, nil
}

// UserBySubject finds the user an OpenID subject signed in as.
func (s *Store) UserBySubject(ctx context.Context, subject string) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, accountUserBySubjectSQL, subject))
	if err != nil {
		return store.User{}, fmt.Errorf("user signed in as %s: %w", subject, err)
	}
	return u, nil
}

// ListUsers returns every user ordered by name.
func (s *Store) ListUsers(ctx context.Context) ([]store.User, error) {
	rows, err := s.pool.Query(ctx, accountUsersListSQL)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	out := []store.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// UpdateUser changes the fields set in u.
func (s *Store) UpdateUser(ctx context.Context, id string, u store.UserUpdate) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		return mustAffect(tx.Exec(ctx, accountUserUpdateSQL, u.Admin, u.Disabled, u.Email, id))
	})
	if err != nil {
		return fmt.Errorf("update user %s: %w", id, err)
	}
	return nil
}

// SetUserToken makes hash the user's one token hash.
func (s *Store) SetUserToken(ctx context.Context, userID, hash string) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, accountTokensDeleteSQL, userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, accountTokenInsertSQL, hash, userID, backend.Nanos(s.nowUTC()))
		return missingRef(err)
	})
	if err != nil {
		return fmt.Errorf("set token of user %s: %w", userID, err)
	}
	return nil
}

// UserByTokenHash finds the user holding the token of that hash.
func (s *Store) UserByTokenHash(ctx context.Context, hash string) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, accountUserByTokenSQL, hash))
	if err != nil {
		return store.User{}, fmt.Errorf("user by token: %w", err)
	}
	return u, nil
}

// SetMember gives a user a role in a workspace.
func (s *Store) SetMember(ctx context.Context, m store.Member) error {
	if err := store.CheckRole(m.Role); err != nil {
		return err
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, accountMemberPutSQL, m.WorkspaceID, m.UserID, m.Role)
		return missingRef(err)
	})
	if err != nil {
		return fmt.Errorf("make user %s %s of workspace %s: %w", m.UserID, m.Role, m.WorkspaceID, err)
	}
	return nil
}

// RemoveMember takes a user out of a workspace.
func (s *Store) RemoveMember(ctx context.Context, workspaceID, userID string) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		return mustAffect(tx.Exec(ctx, accountMemberDeleteSQL, workspaceID, userID))
	})
	if err != nil {
		return fmt.Errorf("remove user %s from workspace %s: %w", userID, workspaceID, err)
	}
	return nil
}

func (s *Store) members(ctx context.Context, q, key string) ([]store.Member, error) {
	rows, err := s.pool.Query(ctx, q, key)
	if err != nil {
		return nil, fmt.Errorf("list members of %s: %w", key, err)
	}
	defer rows.Close()
	out := []store.Member{}
	for rows.Next() {
		var m store.Member
		if err := rows.Scan(&m.WorkspaceID, &m.UserID, &m.Role); err != nil {
			return nil, fmt.Errorf("list members of %s: %w", key, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Members returns a workspace's members.
func (s *Store) Members(ctx context.Context, workspaceID string) ([]store.Member, error) {
	return s.members(ctx, accountMembersListSQL, workspaceID)
}

// Memberships returns the workspaces a user belongs to.
func (s *Store) Memberships(ctx context.Context, userID string) ([]store.Member, error) {
	return s.members(ctx, accountMembershipsListSQL, userID)
}

// SetSessionOwner records who started a session.
func (s *Store) SetSessionOwner(ctx context.Context, sessionID, userID string) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, accountOwnerPutSQL, sessionID, userID)
		return missingRef(err)
	})
	if err != nil {
		return fmt.Errorf("set owner of session %s: %w", sessionID, err)
	}
	return nil
}

// SessionOwner returns the id of the session's owner, "" for none.
func (s *Store) SessionOwner(ctx context.Context, sessionID string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, accountOwnerGetSQL, sessionID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("owner of session %s: %w", sessionID, err)
	}
	return id, nil
}

// AddAudit stores an audit entry.
func (s *Store) AddAudit(ctx context.Context, e store.AuditEntry) (store.AuditEntry, error) {
	e = backend.PrepareAudit(e, s.nowUTC())
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, accountAuditInsertSQL, e.ID, backend.Nanos(e.At), e.Actor, e.Action, e.Target, e.Detail)
		return err
	})
	if err != nil {
		return store.AuditEntry{}, fmt.Errorf("add audit entry %s: %w", e.Action, err)
	}
	return e, nil
}

// ListAudit returns audit entries newest first.
func (s *Store) ListAudit(ctx context.Context, q store.AuditQuery) ([]store.AuditEntry, error) {
	rows, err := s.pool.Query(ctx, accountAuditListSQL, q.Actor, q.Actor, backend.AuditLimit(q))
	if err != nil {
		return nil, fmt.Errorf("list audit log: %w", err)
	}
	defer rows.Close()
	out := []store.AuditEntry{}
	for rows.Next() {
		var e store.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Detail); err != nil {
			return nil, fmt.Errorf("list audit log: %w", err)
		}
		e.At = backend.FromNanos(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// AddSpend adds to what the user spent on day and returns the new total:
// one statement, no transaction around it (the upsert is atomic on its
// own), as it runs after every model call of a turn under a daily budget.
func (s *Store) AddSpend(ctx context.Context, userID, day string, usd float64) (float64, error) {
	var total float64
	err := missingRef(s.pool.QueryRow(ctx, accountSpendAddSQL, userID, day, usd).Scan(&total))
	if err != nil {
		return 0, fmt.Errorf("add spend of user %s: %w", userID, err)
	}
	return total, nil
}

// Spend is what the user spent on day.
func (s *Store) Spend(ctx context.Context, userID, day string) (float64, error) {
	var total float64
	err := s.pool.QueryRow(ctx, accountSpendGetSQL, userID, day).Scan(&total)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("spend of user %s: %w", userID, err)
	}
	return total, nil
}
