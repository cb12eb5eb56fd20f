package bridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
)

// A file download that stalls is given up after fetchTimeout, with an
// error naming the file: a chat's updates are taken one at a time, so it
// must not hold up the ones after it.
func TestStalledDownloadIsGivenUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &Bridge{}
		stalled := File{Name: "big.png", Fetch: func(ctx context.Context, _ int64) ([]byte, error) {
			<-ctx.Done() // a server that never sends a byte
			return nil, ctx.Err()
		}}
		_, _, err := b.attachments(context.Background(), Update{Text: "look", Files: []File{stalled}})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "download big.png") {
			t.Fatalf("err = %v, want the download of big.png given up", err)
		}
	})
}
