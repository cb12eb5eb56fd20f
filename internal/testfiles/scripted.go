package testfiles

import (
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Scripted starts a scripted model server on script for the test and
// returns it with its base URL; it closes when the test ends. A failure to
// start ends the test.
func Scripted(t testing.TB, script scripted.Script, opts ...scripted.Option) (*scripted.Server, string) {
	t.Helper()
	srv := scripted.New(script, opts...)
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, url
}
