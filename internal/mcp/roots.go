//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 (SEP-2577) but servers of earlier versions (the filesystem server) still use them, for the deprecation window

package mcp

import (
	"net/url"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// offerRoots declares the roots capability and offers the session's
// folders as file:// roots.
func offerRoots(caps *sdk.ClientCapabilities) {
	caps.RootsV2 = &sdk.RootCapabilities{ListChanged: true}
}

func addRoots(c *sdk.Client, dirs []string) {
	c.AddRoots(sessionRoots(dirs)...)
}

// sessionRoots are the session's folders offered as MCP roots.
func sessionRoots(dirs []string) []*sdk.Root {
	var out []*sdk.Root
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		out = append(out, &sdk.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return out
}
