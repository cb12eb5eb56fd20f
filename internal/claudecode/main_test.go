package claudecode

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises test parallelism: the real-CLI tests mostly wait on a
// subprocess and a scripted server, so running only GOMAXPROCS of them at
// once would make the package slow on small machines.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		_ = f.Value.Set("4")
	}
	os.Exit(m.Run())
}
