package mcp

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
)

// varRef matches ${VAR} and ${VAR:-default} as Claude Code expands them.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`) })

// LookupFunc finds an environment variable (os.LookupEnv in production).
type LookupFunc func(string) (string, bool)

// ExpandString replaces ${VAR} and ${VAR:-default} in s. Unset variables
// without a default are returned in missing, and expand to "".
func ExpandString(s string, lookup LookupFunc) (out string, missing []string) {
	out = varRef().ReplaceAllStringFunc(s, func(m string) string {
		sub := varRef().FindStringSubmatch(m)
		if v, ok := lookup(sub[1]); ok && v != "" {
			return v
		}
		if hasDefault(m) {
			return sub[2]
		}
		if v, ok := lookup(sub[1]); ok {
			return v
		}
		missing = append(missing, sub[1])
		return ""
	})
	return out, missing
}

func hasDefault(ref string) bool {
	for i := 0; i+1 < len(ref); i++ {
		if ref[i] == ':' && ref[i+1] == '-' {
			return true
		}
	}
	return false
}

// Expand returns c with ${VAR} references in command, args, env values,
// cwd, url and headers replaced. A reference to an unset variable without a
// default is an error naming the server, field and variable.
func (c ServerConfig) Expand(name string, lookup LookupFunc) (ServerConfig, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var missing []string
	var field string
	exp := func(f, s string) string {
		v, m := ExpandString(s, lookup)
		if len(m) > 0 && field == "" {
			field = f
		}
		missing = append(missing, m...)
		return v
	}
	out := c
	out.Command = exp("command", c.Command)
	out.Cwd = exp("cwd", c.Cwd)
	out.URL = exp("url", c.URL)
	if c.Args != nil {
		out.Args = make([]string, len(c.Args))
		for i, a := range c.Args {
			out.Args[i] = exp(fmt.Sprintf("args[%d]", i), a)
		}
	}
	out.Env = expandMap("env", c.Env, exp)
	out.Headers = expandMap("headers", c.Headers, exp)
	if c.OAuth != nil {
		o := *c.OAuth
		o.ClientID = exp("oauth.clientId", o.ClientID)
		o.ClientSecret = exp("oauth.clientSecret", o.ClientSecret)
		out.OAuth = &o
	}
	if len(missing) > 0 {
		return c, &FieldError{File: c.File, Server: name, Field: field,
			Msg: fmt.Sprintf("environment variable %s is not set (set it, or write ${%s:-default})", missing[0], missing[0])}
	}
	return out, nil
}

func expandMap(field string, m map[string]string, exp func(string, string) string) map[string]string {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		out[k] = exp(field+"."+k, m[k])
	}
	return out
}

// RefFields names the fields of c that reference environment variables
// (${VAR}), sorted: "url", "args[0]", "env.KEY", "headers.Authorization".
// A project's entry that does would copy the user's environment (API keys)
// into the server's settings, so it needs a trusted folder.
func (c ServerConfig) RefFields() []string {
	fields := map[string]string{"command": c.Command, "cwd": c.Cwd, "url": c.URL}
	for i, a := range c.Args {
		fields[fmt.Sprintf("args[%d]", i)] = a
	}
	for k, v := range c.Env {
		fields["env."+k] = v
	}
	for k, v := range c.Headers {
		fields["headers."+k] = v
	}
	if c.OAuth != nil {
		fields["oauth.clientId"], fields["oauth.clientSecret"] = c.OAuth.ClientID, c.OAuth.ClientSecret
	}
	var out []string
	for k, v := range fields {
		if varRef().MatchString(v) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
