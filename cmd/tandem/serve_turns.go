package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// turnsFileName is the embedded default's turn queue, beside tandem.db:
// DBOS's migrations and the store's do not share a version table.
const turnsFileName = "tandem-turns.db"

// openTurns opens the durable turn queue every `tandem serve` runs its
// turns on (docs/api.md, Replicas): on the shared PostgreSQL (schema
// "dbos") or on a SQLite file of its own beside the store's.
func openTurns(ctx context.Context, a *app.App, replica string, log *slog.Logger) (*turnqueue.Engine, error) {
	dbURL := a.DatabaseURL()
	kind, file, err := storeopen.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	sys := dbURL
	if kind != storeopen.Postgres {
		if file == "" {
			file = a.Paths.DBFile()
		}
		sys = "sqlite:" + filepath.Join(filepath.Dir(file), turnsFileName)
	}
	e, err := turnqueue.Open(ctx, turnqueue.Config{Replica: replica, DatabaseURL: sys, Logger: log,
		Messages: func(ctx context.Context, id string) (int, error) {
			msgs, err := a.Manager.Messages(ctx, id)
			return len(msgs), err
		}})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return e, nil
}
