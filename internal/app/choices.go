package app

// ModelChoice is a model a picker may offer.
type ModelChoice struct {
	ID   string // provider/model
	Name string
}

// ModelChoices lists the catalog's models whose provider has a key in the
// user's configuration or environment: the ones a session can switch to.
func (a *App) ModelChoices() []ModelChoice {
	keyed := map[string]bool{}
	for _, p := range (ServerCatalog{App: a}).Providers() {
		keyed[p.Name] = p.HasKey
	}
	var out []ModelChoice
	for _, m := range a.Catalog.Models() {
		if keyed[m.Provider] {
			out = append(out, ModelChoice{ID: m.Provider + "/" + m.ID, Name: m.Name})
		}
	}
	return out
}

// SlashCommand is a command a prompt may start with ("/name args").
type SlashCommand struct {
	Name         string
	Description  string
	ArgumentHint string
}

// SlashCommands lists the commands a session in cwd offers, for editors
// and UIs that complete them.
// The folder's custom commands and user-invocable skills follow /compact;
// a folder whose files cannot be read offers /compact alone (the session
// reports those files itself).
func (a *App) SlashCommands(cwd string) []SlashCommand {
	out := []SlashCommand{{Name: "compact", Description: "Summarise the conversation so far to free the context window", ArgumentHint: "[focus]"}}
	ext, err := a.ExtensionsFor(cwd)
	if err != nil {
		return out
	}
	for _, c := range ext.Commands {
		if c.Name != "compact" {
			out = append(out, SlashCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint})
		}
	}
	return out
}
