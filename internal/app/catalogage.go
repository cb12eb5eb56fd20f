package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleCatalogNotice is the once-a-day word that the binary's model
// catalog is more than six months old on day now (new models, prices and
// retirements it cannot know), or "" when it is current or was already
// said today. The day it was said is kept in the data folder; a folder
// that cannot be written only means saying it again.
func (a *App) StaleCatalogNotice(now time.Time) string {
	if !a.Catalog.Stale(now) {
		return ""
	}
	today := now.Format(time.DateOnly)
	path := a.Paths.CatalogNoticeFile()
	if last, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(last)) == today {
		return ""
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	_ = os.WriteFile(path, []byte(today+"\n"), 0o600)
	return fmt.Sprintf("tandem's model catalog dates from %s, more than six months ago: newer models, prices and retirements are missing; update tandem (`tandem models --refresh` shows what the providers list now)",
		a.Catalog.Date().Format(time.DateOnly))
}
