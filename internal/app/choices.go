package app

import (
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/skills"
)

// ModelChoice is a model a picker may offer.
type ModelChoice struct {
	ID   string // provider/model
	Name string
	// Status is "" for an active model, else its lifecycle on the day
	// ("legacy", "deprecated, retires 2027-01-22"): pickers show it.
	Status string
}

// Label is the name a picker shows: the name, and the status when the
// model is not active.
func (c ModelChoice) Label() string {
	if c.Status == "" {
		return c.Name
	}
	return c.Name + " (" + c.Status + ")"
}

// ModelChoices lists the catalog's models whose provider has a key in the
// user's configuration or environment: the ones a session can switch to.
// Retired models are left out (a session would refuse them).
func (a *App) ModelChoices() []ModelChoice {
	keyed := map[string]bool{}
	for _, p := range (ServerCatalog{App: a}).Providers() {
		keyed[p.Name] = p.HasKey
	}
	now := a.models.now()
	var out []ModelChoice
	for _, m := range a.Catalog.Models() {
		if keyed[m.Provider] && m.StatusAt(now) != catalog.Retired {
			out = append(out, ModelChoice{ID: m.Provider + "/" + m.ID, Name: m.Name, Status: m.StatusLabel(now)})
		}
	}
	return out
}

// SlashCommand is a command a prompt may start with ("/name args").
type SlashCommand = listing.SlashCommand

// SlashCommands lists the commands a session in cwd offers, for editors
// and UIs that complete them.
// The folder's custom commands and user-invocable skills follow the
// built-ins that run as turns (/compact, /init); a folder whose files
// cannot be read offers those alone (the session reports its files itself).
func (a *App) SlashCommands(cwd string) []SlashCommand {
	ext, err := a.ExtensionsFor(cwd)
	if err != nil {
		ext = nil
	}
	return slashCommands(ext)
}

// SlashCommands lists the commands the live session accepts, from what it
// loaded when it was equipped (as App.SlashCommands lists a folder's),
// then its MCP servers' prompts (/mcp__server__prompt).
func (eq *Equipment) SlashCommands() []SlashCommand {
	return append(slashCommands(eq.Extensions()), eq.mcpPromptCommands()...)
}

// slashCommands is the one list of commands a session accepts: the
// built-ins that run as turns, then the custom commands and user-invocable
// skills of ext (nil: the built-ins alone).
func slashCommands(ext *Extensions) []SlashCommand {
	var out []SlashCommand
	for _, c := range skills.TurnBuiltins {
		out = append(out, SlashCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
	}
	if ext == nil {
		return out
	}
	for _, c := range ext.Commands {
		if !skills.IsBuiltin(c.Name) { // (the catalog warns of such files; it keeps none)
			out = append(out, SlashCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	return out
}
