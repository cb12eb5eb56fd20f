package feishu

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/larksuite/oapi-sdk-go/v3/core/httpserverext"
	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
)

// maxBody is the largest request the webhook reads.
const maxBody = 1 << 20

// maxAge is the oldest event the webhook takes. Feishu's retries of an
// unanswered event end within hours; the bridge remembers taken event ids
// for 48 hours, so a request replayed later than that would run again.
const maxAge = 24 * time.Hour

// serveWebhook serves the event and card callback endpoint until ctx
// ends. The SDK's handler does the protocol: the url_verification
// challenge (answered only with the right verification token), encrypted
// bodies decrypted with the Encrypt Key, and with a key the request
// signature (X-Lark-Signature) checked; the dispatcher then calls
// onMessage and onCardAction, which check every event's token and age
// (authentic). A handler's error answers 500, and Feishu delivers the
// event again later.
func (p *Platform) serveWebhook(ctx context.Context) error {
	w := p.cfg.Webhook
	ln, err := net.Listen("tcp", w.Listen)
	if err != nil {
		return fmt.Errorf("listen for Feishu events on %s: %w", w.Listen, err)
	}
	events := httpserverext.NewEventHandlerFunc(p.events)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(rw, "POST only", http.StatusMethodNotAllowed)
			return
		}
		r.Body = http.MaxBytesReader(rw, r.Body, maxBody)
		events(rw, r)
	})}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-p.addr:
	default:
	}
	p.addr <- ln.Addr().String()
	select {
	case <-ctx.Done():
		// Requests being handled finish (a press waits for its toast);
		// then nothing of this endpoint runs on.
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(stop)
		_ = srv.Close()
		<-errc
		return nil
	case err := <-errc:
		return fmt.Errorf("the Feishu webhook stopped: %w", err)
	}
}

// WebhookAddr returns the address the webhook listens on, once it does.
func (p *Platform) WebhookAddr(ctx context.Context) (string, error) {
	select {
	case a := <-p.addr:
		p.addr <- a
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// authentic checks an event the webhook received: it carries the app's
// verification token (without an Encrypt Key, the only proof it comes
// from Feishu; the SDK checks the token of the challenge only) and is
// not older than maxAge. Events of the long connection need neither: the
// connection was made with the app's credentials.
func (p *Platform) authentic(base *larkevent.EventV2Base) error {
	w := p.cfg.Webhook
	if w == nil {
		return nil
	}
	if base == nil || base.Header == nil {
		return errors.New("feishu webhook: an event without a header (schema 2.0 is needed): refused")
	}
	if subtle.ConstantTimeCompare([]byte(base.Header.Token), []byte(w.VerificationToken)) != 1 {
		return errors.New("feishu webhook: an event without the app's verification token: refused")
	}
	ms, err := strconv.ParseInt(base.Header.CreateTime, 10, 64)
	if err != nil || time.Since(time.UnixMilli(ms)) > maxAge {
		return fmt.Errorf("feishu webhook: event %s was created more than %s ago (or at no stated time): refused", base.Header.EventID, maxAge)
	}
	return nil
}
