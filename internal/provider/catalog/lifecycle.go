package catalog

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Lifecycle statuses, as the providers' deprecation pages name them.
const (
	Active     = "active"     // supported and recommended
	Legacy     = "legacy"     // works, superseded; may be deprecated later
	Deprecated = "deprecated" // works until its retirement date
	Retired    = "retired"    // requests fail
)

// Lifecycle is where a model stands on its platform, with dates
// (YYYY-MM-DD) as the provider gave them.
type Lifecycle struct {
	// Status is one of the constants above; "" reads as active.
	Status     string `json:"status,omitempty"`
	Released   string `json:"released,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	// Retires is the retirement date, past or planned.
	Retires string `json:"retires,omitempty"`
	// Replacement is the id (same provider) to move to.
	Replacement string `json:"replacement,omitempty"`
}

// StatusAt is the model's status on day now: a deprecated model whose
// retirement date has come is retired.
func (l Lifecycle) StatusAt(now time.Time) string {
	if l.Status == Retired {
		return Retired
	}
	if l.Retires != "" {
		if d, err := time.Parse(time.DateOnly, l.Retires); err == nil && !now.Before(d) {
			return Retired
		}
	}
	if l.Status == "" {
		return Active
	}
	return l.Status
}

// hostedLifecycle is a cloud copy's lifecycle: its own when the catalog
// gives one; otherwise the first party's, except that the first party
// retiring a model says nothing of the cloud's date (partners set their
// own), so it reads as legacy there: usable, with a warning.
func hostedLifecycle(src, hosted *ModelInfo) Lifecycle {
	if hosted.Status != "" {
		return hosted.Lifecycle
	}
	l := src.Lifecycle
	if l.Status == Retired || l.Status == Deprecated || l.Retires != "" {
		l = Lifecycle{Status: Legacy, Released: l.Released, Replacement: l.Replacement}
	}
	return l
}

func (c *Catalog) checkLifecycles() error {
	for _, m := range c.models {
		switch m.Status {
		case "", Active, Legacy, Deprecated, Retired:
		default:
			return fmt.Errorf("model catalog: %s/%s has status %q", m.Provider, m.ID, m.Status)
		}
		for _, d := range []string{m.Released, m.Deprecated, m.Retires} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return fmt.Errorf("model catalog: %s/%s: date %q is not YYYY-MM-DD", m.Provider, m.ID, d)
			}
		}
		if m.Replacement != "" {
			if r, _ := c.find(m.Provider, m.Replacement); r == nil {
				return fmt.Errorf("model catalog: %s/%s names replacement %s, which is not listed", m.Provider, m.ID, m.Replacement)
			}
		}
	}
	return nil
}

// Date is the day the catalog's facts were last checked.
func (c *Catalog) Date() time.Time { return c.date }

// Stale reports whether the catalog is more than six months older than now.
func (c *Catalog) Stale(now time.Time) bool { return now.After(c.date.AddDate(0, 6, 0)) }

// platformNames are the names messages give a provider's platform.
var platformNames = map[string]string{
	"anthropic": "the Anthropic API", "openai": "the OpenAI API", "gemini": "the Gemini API",
	"bedrock": "Amazon Bedrock", "vertex": "Vertex AI",
}

func platform(provider string) string {
	if n, ok := platformNames[provider]; ok {
		return n
	}
	return provider
}

// Check judges a resolved model on day now. A model retired on the
// platform the spec names is refused with an error naming its
// replacement; a legacy or deprecated one (or a retired one reached
// through another provider, such as a proxy, which may still serve it)
// is allowed with a notice to show once. Unknown models pass silently.
func (c *Catalog) Check(r Resolved, now time.Time) (notice string, err error) {
	info := r.Info
	if info == nil {
		return "", nil
	}
	status := info.StatusAt(now)
	own := info.Provider == r.Provider
	switch {
	case status == Retired && own:
		return "", fmt.Errorf("%s was retired%s on %s; %s", info.ID, on(info.Retires), platform(info.Provider), c.useInstead(info))
	case status == Retired:
		return fmt.Sprintf("%s was retired%s on %s; provider %s may still serve it, or %s", info.ID, on(info.Retires), platform(info.Provider), r.Provider, c.useInstead(info)), nil
	case status == Deprecated:
		when := ""
		if info.Retires != "" {
			when = " and retires on " + info.Retires
		}
		return fmt.Sprintf("%s is deprecated on %s%s; %s", info.ID, platform(info.Provider), when, c.useInstead(info)), nil
	case status == Legacy:
		return fmt.Sprintf("%s is a legacy model on %s; %s", info.ID, platform(info.Provider), c.useInstead(info)), nil
	}
	return "", nil
}

func on(date string) string {
	if date == "" {
		return ""
	}
	return " on " + date
}

// useInstead names the replacement and the short name that reaches it.
func (c *Catalog) useInstead(info *ModelInfo) string {
	repl := info.Replacement
	if repl == "" {
		repl = c.defaults[info.Provider]
	}
	if repl == "" {
		return "choose another model (tandem models lists them)"
	}
	if alias := c.aliasFor(info.Provider, repl); alias != "" {
		return fmt.Sprintf("use %s (--model %s)", repl, alias)
	}
	return fmt.Sprintf("use %s (--model %s/%s)", repl, info.Provider, repl)
}

// aliasOrder: family names first, then tandem's own.
var aliasOrder = []string{"opus", "sonnet", "haiku", "fable", "best", "fast"}

func (c *Catalog) aliasFor(provider, id string) string {
	names := c.aliases[provider]
	for _, a := range aliasOrder {
		if names[a] == id {
			return a
		}
	}
	for a, v := range names {
		if v == id {
			return a
		}
	}
	return ""
}

// Default is the provider's recommended model ("" when none).
func (c *Catalog) Default(provider string) string { return c.defaults[provider] }

// Aliases returns the provider's short names and the ids they stand for.
func (c *Catalog) Aliases(provider string) map[string]string {
	out := map[string]string{}
	for k, v := range c.aliases[provider] {
		out[k] = v
	}
	return out
}

// IsAlias reports whether name is a short name of some provider.
func (c *Catalog) IsAlias(name string) bool {
	for _, names := range c.aliases {
		if _, ok := names[name]; ok {
			return true
		}
	}
	return false
}

// alias resolves a bare short name: the first-party provider that has it
// (opus is Anthropic's; best and fast need a provider).
func (c *Catalog) alias(name string) (provider, id string, err error) {
	var provs []string
	for prov, names := range c.aliases {
		if p, ok := c.presets[prov]; ok && (p.Kind == "bedrock" || p.Kind == "vertex") {
			continue
		}
		if _, ok := names[name]; ok {
			provs = append(provs, prov)
		}
	}
	slices.Sort(provs)
	switch len(provs) {
	case 0:
		return "", "", nil
	case 1:
		return provs[0], c.aliases[provs[0]][name], nil
	}
	var opts []string
	for _, p := range provs {
		opts = append(opts, p+"/"+name)
	}
	return "", "", fmt.Errorf("%q is a short name under several providers; write one of %s", name, strings.Join(opts, ", "))
}

func (c *Catalog) checkAliases() error {
	for prov, names := range c.aliases {
		for a, id := range names {
			if info, _ := c.find(prov, id); info == nil {
				return fmt.Errorf("model catalog: alias %s/%s names %s, which is not listed", prov, a, id)
			}
		}
	}
	for prov, id := range c.defaults {
		if info, _ := c.find(prov, id); info == nil {
			return fmt.Errorf("model catalog: the default of %s, %s, is not listed", prov, id)
		}
	}
	return nil
}

// StatusLabel says where the model stands on day now, for lists and
// pickers: "" when active, else the status with its date ("legacy",
// "deprecated, retires 2027-03-01", "retired 2026-11-30").
func (l Lifecycle) StatusLabel(now time.Time) string {
	switch s := l.StatusAt(now); s {
	case Active:
		return ""
	case Retired:
		if l.Retires != "" {
			return "retired " + l.Retires
		}
		return Retired
	case Deprecated:
		if l.Retires != "" {
			return "deprecated, retires " + l.Retires
		}
		return Deprecated
	default:
		return s
	}
}
