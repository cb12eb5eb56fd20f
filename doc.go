// Package tandem embeds the tandem coding agent in a Go program.
//
// Open an Engine (a tandem home: configuration and session store, plus
// providers, tools and MCP servers given in code), open or resume a
// Session in a folder, and Run turns. Each turn streams Events (the same
// stream `tandem run --output-format stream-json` prints, see
// docs/events.md) to the OnEvent callbacks and returns a Result. Tool
// calls go through tandem's permission engine; questions it leaves to the
// user reach a PermissionFunc. Sessions are stored as the CLI stores them:
// `tandem sessions list` shows them and `tandem run --resume ID` continues
// them, and ResumeSession continues the CLI's.
//
//	eng, err := tandem.Open(ctx, tandem.Options{Model: "anthropic/claude-sonnet-5-5"})
//	if err != nil { ... }
//	defer eng.Close()
//	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: ".", OnEvent: func(e tandem.Event) {
//		if e.Type == tandem.EventText { fmt.Print(e.Text) }
//	}})
//	if err != nil { ... }
//	defer s.Close()
//	res, err := s.Run(ctx, "find the failing test and fix it", nil)
//
// # Stability
//
// tandem is before 1.0. Until then this package may change in these ways:
// fields may be added to the option, event
// and result structs (use field names in composite literals); new event
// types and result subtypes may appear (ignore the ones you do not know);
// ModelRequest, Message and Block may grow as providers' features are
// carried through; the Provider interface may gain optional interfaces a
// provider can implement. Names and the meaning of existing fields are
// meant to stay. Event's JSON form is the documented event contract and
// changes only as docs/events.md does. Nothing outside this package (the
// internal/ packages, the CLI's output) is part of the Go API.
package tandem
