package backend

import (
	"encoding/json"
	"fmt"
)

// ReplicaWorkspaces encodes a replica's folders as stored (a JSON array).
func ReplicaWorkspaces(paths []string) string {
	if paths == nil {
		paths = []string{}
	}
	b, _ := json.Marshal(paths) // strings always encode
	return string(b)
}

// ParseReplicaWorkspaces decodes what ReplicaWorkspaces stored.
func ParseReplicaWorkspaces(s string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("stored replica workspaces %q: %w", s, err)
	}
	return out, nil
}
