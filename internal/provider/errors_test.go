package provider

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	h := map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}
	if d := RetryAfter(h, now); d != 30*time.Second {
		t.Errorf("got %v", d)
	}
	if d := RetryAfter(map[string]string{"retry-after": "garbage"}, now); d != 0 {
		t.Errorf("got %v", d)
	}
}
