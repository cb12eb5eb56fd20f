package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// Receive connects (auth.test), then takes updates over Socket Mode or
// the Events API until ctx ends or the connection fails.
func (p *Platform) Receive(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	if err := p.hello(ctx); err != nil {
		return err
	}
	if p.cfg.Events != nil {
		return p.serveEvents(ctx, handle)
	}
	return p.socketMode(ctx, handle)
}

// socketMode runs one Socket Mode connection: every envelope is
// acknowledged first (a slash command with its response, slash.go) (Slack redelivers one it has no ack for), then
// handled. The library reconnects by itself when Slack asks it to or the
// socket drops; this connection ends there instead, so the bridge logs it
// and reconnects with its own backoff (the update ids it stored keep a
// redelivered envelope from running twice).
func (p *Platform) socketMode(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	sm := socketmode.New(p.api, socketmode.OptionLog(log.New(io.Discard, "", 0)))
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- sm.RunContext(runCtx) }()
	end := func(err error) error {
		cancel()
		<-errc
		return err
	}
	connected := false
	for {
		select {
		case <-ctx.Done():
			return end(nil)
		case err := <-errc:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("slack socket mode: %w", err)
		case ev := <-sm.Events:
			switch ev.Type {
			case socketmode.EventTypeConnected:
				connected = true
			case socketmode.EventTypeConnecting:
				if connected {
					return end(errors.New("the Socket Mode connection closed"))
				}
			case socketmode.EventTypeConnectionError:
				return end(fmt.Errorf("open a Socket Mode connection: %v", connErr(ev.Data)))
			case socketmode.EventTypeInvalidAuth:
				return end(errors.New("slack refused the app token: check app_token (xapp-..., scope connections:write)"))
			case socketmode.EventTypeEventsAPI, socketmode.EventTypeInteractive, socketmode.EventTypeSlashCommand:
				if ev.Request == nil {
					continue
				}
				var up bridge.Update
				var ok bool
				var ack any // a slash command's response
				switch ev.Request.Type {
				case socketmode.RequestTypeEventsAPI:
					up, ok = p.eventUpdate(ev.Request.Payload)
				case socketmode.RequestTypeInteractive:
					up, ok = p.interactionUpdate(ev.Request.Payload)
				case socketmode.RequestTypeSlashCommands:
					if cmd, isCmd := ev.Data.(slack.SlashCommand); isCmd {
						var msg *slack.Msg
						up, ok, msg = p.slashUpdate(cmd)
						ack = msg
					}
				}
				if err := sm.AckCtx(ctx, ev.Request.EnvelopeID, ack); err != nil {
					return end(fmt.Errorf("acknowledge envelope %s: %w", ev.Request.EnvelopeID, err))
				}
				if ok {
					handle(ctx, up)
				}
			}
		}
	}
}

func connErr(data any) any {
	type errorer interface{ Error() string }
	if e, ok := data.(errorer); ok {
		return e.Error()
	}
	return data
}
