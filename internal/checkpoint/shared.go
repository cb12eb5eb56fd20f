package checkpoint

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// SharedBlobs is a store that keeps checkpoint contents itself (the
// PostgreSQL backend): several machines share it, so the contents a
// checkpoint refers to must be there, not only in one machine's data
// folder. The data folder's blobs stay the local copy (workspace
// baselines, and a rewind reads them first).
type SharedBlobs interface {
	PutBlob(ctx context.Context, data []byte) (string, error)
	MissingBlobs(ctx context.Context, hashes []string) ([]string, error)
	Blob(ctx context.Context, hash string) ([]byte, error)
	CollectBlobs(ctx context.Context, grace time.Duration) (int, error)
}

// sharedOf is the store's SharedBlobs, or nil.
func sharedOf(st any) SharedBlobs {
	sb, _ := st.(SharedBlobs)
	return sb
}

// upload puts the saved contents files refer to into the shared store,
// before the files are recorded: a checkpoint never names a content
// another machine cannot read.
func (s *Service) upload(ctx context.Context, files []store.CheckpointFile) error {
	if s.shared == nil {
		return nil
	}
	var hashes []string
	for _, f := range files {
		if f.State == store.FileSaved && f.Hash != "" {
			hashes = append(hashes, f.Hash)
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	missing, err := s.shared.MissingBlobs(ctx, hashes)
	if err != nil {
		return err
	}
	for _, h := range missing {
		data, err := s.blobs.get(h)
		if err != nil {
			return err
		}
		got, err := s.shared.PutBlob(ctx, data)
		if err != nil {
			return err
		}
		if got != h {
			return fmt.Errorf("snapshot %s changed on disk: its content no longer matches its hash", h[:12])
		}
	}
	return nil
}

// content reads a saved content: the local copy, else the shared store's.
func (s *Service) content(ctx context.Context, hash string) ([]byte, error) {
	data, err := s.blobs.get(hash)
	if err == nil || s.shared == nil {
		return data, err
	}
	return s.shared.Blob(ctx, hash)
}
