package permission

import (
	"net/url"
	"strings"
)

// fetchDefault is how a WebFetch is judged when no rule names its URL.
// Explore mode asks for each host not yet allowed, with
// WebFetch(domain:HOST) as what "allow always" saves: a read-only session
// still reads the web, but a model that has read a secret cannot send it
// to a host of its choosing without someone seeing where. Other modes
// fetch (redirects to another host are reported, not followed, by the
// tool).
func fetchDefault(mode Mode, raw string) verdict {
	if mode != Explore {
		return verdict{action: ActionAllow}
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	host := ""
	if err == nil {
		host = strings.ToLower(u.Hostname())
	}
	if host == "" {
		return verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode fetches only from a host it can name, and " + raw + " has none"}
	}
	return verdict{action: ActionAsk, exploreAsks: true,
		reason:  "explore mode asks before fetching from " + host + ", a host not yet allowed",
		suggest: []Rule{{Permission: "WebFetch", Pattern: "domain:" + host, Action: ActionAllow}}}
}
