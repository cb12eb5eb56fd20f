package app

import (
	"strings"
	"testing"
	"time"
)

// An old catalog is said once a day: not while it is current, once on a
// stale day, not again that day, again the next day.
func TestStaleCatalogNoticeOnceADay(t *testing.T) {
	a, _ := testApp(t, nil)
	date := a.Catalog.Date()
	if n := a.StaleCatalogNotice(date.AddDate(0, 6, 0)); n != "" {
		t.Errorf("six months to the day is not stale: %q", n)
	}
	day := date.AddDate(0, 7, 0).Add(9 * time.Hour)
	n := a.StaleCatalogNotice(day)
	if !strings.Contains(n, "model catalog dates from "+date.Format(time.DateOnly)) {
		t.Fatalf("stale day: %q", n)
	}
	if again := a.StaleCatalogNotice(day.Add(5 * time.Hour)); again != "" {
		t.Errorf("said twice in a day: %q", again)
	}
	if next := a.StaleCatalogNotice(day.AddDate(0, 0, 1)); next == "" {
		t.Error("not said the next day")
	}
}
