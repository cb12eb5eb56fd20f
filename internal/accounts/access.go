package accounts

import (
	"context"
	"fmt"
)

// Access is what a user may do with a workspace's sessions.
type Access int

// The levels, each including the ones before.
const (
	NoAccess Access = iota
	Read            // see, stream, list (a viewer)
	Write           // prompt, answer, rewind, change (an editor)
	Manage          // members, trust, deletion (an owner; an admin everywhere)
)

func (a Access) String() string {
	return [...]string{"none", "read", "write", "manage"}[a]
}

// AccessOfRole is the access a workspace role gives.
func AccessOfRole(role string) Access {
	switch role {
	case RoleOwner:
		return Manage
	case RoleEditor:
		return Write
	case RoleViewer:
		return Read
	}
	return NoAccess
}

// FolderAccess is what u may do in folder: an admin everything, anyone
// else what their role in the deepest workspace holding folder gives
// (membership of an outer workspace gives nothing in a nested one).
func (s *Service) FolderAccess(ctx context.Context, u User, folder string) (Access, Workspace, error) {
	ws, ok, err := s.st.WorkspaceForPath(ctx, folder)
	if err != nil {
		return NoAccess, Workspace{}, err
	}
	if u.Admin {
		return Manage, ws, nil
	}
	if !ok {
		return NoAccess, ws, nil
	}
	ms, err := s.st.Memberships(ctx, u.ID)
	if err != nil {
		return NoAccess, ws, err
	}
	for _, m := range ms {
		if m.WorkspaceID == ws.ID {
			return AccessOfRole(m.Role), ws, nil
		}
	}
	return NoAccess, ws, nil
}

// WorkspaceAccess is what u may do in the workspace of that id.
func (s *Service) WorkspaceAccess(ctx context.Context, u User, workspaceID string) (Access, error) {
	if u.Admin {
		return Manage, nil
	}
	ms, err := s.st.Memberships(ctx, u.ID)
	if err != nil {
		return NoAccess, err
	}
	for _, m := range ms {
		if m.WorkspaceID == workspaceID {
			return AccessOfRole(m.Role), nil
		}
	}
	return NoAccess, nil
}

// Memberships returns the workspaces u belongs to.
func (s *Service) Memberships(ctx context.Context, userID string) ([]Member, error) {
	return s.st.Memberships(ctx, userID)
}

// Members returns a workspace's members.
func (s *Service) Members(ctx context.Context, workspaceID string) ([]Member, error) {
	return s.st.Members(ctx, workspaceID)
}

// SetMember gives a user a role in a workspace.
func (s *Service) SetMember(ctx context.Context, actor string, m Member) error {
	if err := s.st.SetMember(ctx, m); err != nil {
		return err
	}
	s.Audit(ctx, actor, "member.set", m.WorkspaceID, fmt.Sprintf("user=%s role=%s", m.UserID, m.Role))
	return nil
}

// RemoveMember takes a user out of a workspace.
func (s *Service) RemoveMember(ctx context.Context, actor, workspaceID, userID string) error {
	if err := s.st.RemoveMember(ctx, workspaceID, userID); err != nil {
		return err
	}
	s.Audit(ctx, actor, "member.remove", workspaceID, "user="+userID)
	return nil
}

// SetOwner records who started a session.
func (s *Service) SetOwner(ctx context.Context, sessionID, userID string) error {
	return s.st.SetSessionOwner(ctx, sessionID, userID)
}

// Owner is the id of a session's owner, "" for none.
func (s *Service) Owner(ctx context.Context, sessionID string) (string, error) {
	return s.st.SessionOwner(ctx, sessionID)
}
