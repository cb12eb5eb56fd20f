package feishu

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/feishu/lkfake"
)

// Cancelling Receive stops the long connection: Receive returns, the
// connection closes, and nothing of the SDK's ws client (its receive and
// ping loops, its reconnecting) or of ours runs on, but for the idle
// sweeper of the client's frame cache (one per client, see
// longConnection).
func TestStopLeavesNothingRunning(t *testing.T) {
	fake, err := lkfake.Start(appID, appSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	plat, err := New(Config{AppID: appID, AppSecret: appSecret, BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- plat.Receive(ctx, func(context.Context, bridge.Update) {}) }()
	if !fake.Wait(20*time.Second, fake.Connected) {
		t.Fatal("no long connection")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Receive after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Receive did not return after its context was cancelled")
	}
	if !fake.Wait(20*time.Second, func() bool { return !fake.Connected() }) {
		t.Error("the long connection stayed open")
	}
	noLeaks(t, before, goleak.IgnoreTopFunction("github.com/larksuite/oapi-sdk-go/v3/cache.(*cron).start"))
	if n := fake.Connects(); n != 1 {
		t.Errorf("%d connections; want 1 (nothing reconnects after the stop)", n)
	}
}

// The webhook stops likewise: Receive returns and its server is gone.
func TestWebhookStopLeavesNothingRunning(t *testing.T) {
	plat, err := New(Config{AppID: appID, AppSecret: appSecret, BaseURL: "http://127.0.0.1:1",
		Webhook: &Webhook{Listen: "127.0.0.1:0", VerificationToken: "vt"}})
	if err != nil {
		t.Fatal(err)
	}
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- plat.Receive(ctx, func(context.Context, bridge.Update) {}) }()
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	if _, err := plat.WebhookAddr(wctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Receive after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Receive did not return after its context was cancelled")
	}
	noLeaks(t, before)
}

// noLeaks fails the test if a goroutine not ignored by opts still runs
// (after a garbage collection: the SDK stops some of its own with
// finalizers).
func noLeaks(t *testing.T, opts ...goleak.Option) {
	t.Helper()
	var err error
	for range 50 {
		runtime.GC()
		if err = goleak.Find(opts...); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error(err)
}
