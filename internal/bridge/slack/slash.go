package slack

import (
	"strings"

	"github.com/slack-go/slack"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// DefaultSlashCommand is the slash command the app registers unless
// Config.SlashCommand names another.
const DefaultSlashCommand = "/tandem"

func (p *Platform) slashName() string {
	if p.cfg.SlashCommand != "" {
		return p.cfg.SlashCommand
	}
	return DefaultSlashCommand
}

// slashUpdate maps a slash command to the bridge's update and says how
// to acknowledge it. `/tandem new proj` is the chat's /new proj, `/tandem`
// alone its /help, and a text whose first word is no command a prompt;
// the chat is the channel (or DM) it was typed in, since Slack does not
// say which thread. The acknowledgement shows the command in the channel
// (response_type in_channel, Slack's way for a command whose answer all
// see) and the bridge's answers follow as messages; what is not this
// app's command is answered to its sender alone (ephemeral). ok is false
// when there is nothing for the bridge.
func (p *Platform) slashUpdate(cmd slack.SlashCommand) (up bridge.Update, ok bool, ack *slack.Msg) {
	ephemeral := func(text string) *slack.Msg { return &slack.Msg{ResponseType: slack.ResponseTypeEphemeral, Text: text} }
	if !strings.EqualFold(cmd.Command, p.slashName()) {
		return up, false, ephemeral("This app answers " + p.slashName() + " only.")
	}
	if cmd.ChannelID == "" || cmd.UserID == "" || cmd.TriggerID == "" {
		return up, false, ephemeral("Slack sent this command without its channel or user: try again.")
	}
	text := unescape(strings.TrimSpace(cmd.Text))
	word, rest, _ := strings.Cut(text, " ")
	name := "/" + strings.TrimPrefix(strings.ToLower(word), "/")
	switch {
	case text == "":
		text = "/help"
	case bridge.IsCommand(name):
		text = strings.TrimSpace(name + " " + strings.TrimSpace(rest))
	}
	return bridge.Update{
		// A trigger id is unique to one use of the command; Socket Mode
		// delivers the same payload again after a lost ack.
		ID:   "command:" + cmd.TriggerID,
		Chat: bridge.Chat{ID: cmd.ChannelID}, User: cmd.UserID, UserName: firstNonEmpty(cmd.UserName, cmd.UserID), Text: text,
	}, true, &slack.Msg{ResponseType: slack.ResponseTypeInChannel}
}
