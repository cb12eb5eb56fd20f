package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The end-to-end cases that only run the binary and compare its output
// are txtar scripts in testdata/script (github.com/rogpeppe/go-internal/
// testscript): each starts in a fresh $WORK (the workspace) with tandem
// on PATH, its home in $HOME (= $TANDEM_HOME, $WORK/.home) and an empty
// scripted model server; `scripted FILE` serves FILE's steps
// (scripted.LoadScript's JSON) on a fresh server instead, `requests N`
// counts the requests the server got, `lastmodel ID` checks the last
// one's model, `body N|last REGEX` matches a main (not side-model)
// request's raw body and `resultid VAR` sets $VAR to the session id of
// the last result event the last command printed. Go tests stay for what
// a script cannot say: the browser, tmux, live processes and signals.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("PATH", filepath.Dir(tandemBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			env.Setenv("HOME", home)
			env.Setenv("TANDEM_HOME", home)
			env.Setenv("ANTHROPIC_API_KEY", "test-key")
			env.Setenv("OPENAI_API_KEY", "test-key")
			ref := &serverRef{}
			env.Values[serverKey{}] = ref
			return ref.serve(scripted.Script{}, env.Defer, env.Setenv)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"scripted":  cmdScripted,
			"requests":  cmdRequests,
			"lastmodel": cmdLastModel,
			"body":      cmdBody,
			"resultid":  cmdResultID,
		},
	})
}

// setModelURL points tandem's Anthropic and OpenAI providers at url.
func setModelURL(setenv func(k, v string), url string) {
	setenv("ANTHROPIC_BASE_URL", url)
	setenv("OPENAI_BASE_URL", url+"/v1")
}

// cmdScripted: scripted FILE starts a scripted model server on FILE's
// steps for the rest of the script.
func cmdScripted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: scripted FILE")
	}
	script, err := scripted.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(ts.Value(serverKey{}).(*serverRef).serve(script, ts.Defer, ts.Setenv))
}

// serverKey finds a script's current scripted server (a *serverRef) among
// its values.
type serverKey struct{}

type serverRef struct{ srv *scripted.Server }

// serve starts a scripted server on script as the script's current one,
// closed by defer, with the providers' base URLs set by setenv.
func (r *serverRef) serve(script scripted.Script, deferFn func(func()), setenv func(k, v string)) error {
	srv := scripted.New(script)
	url, err := srv.Start()
	if err != nil {
		return err
	}
	deferFn(srv.Close)
	setModelURL(setenv, url)
	r.srv = srv
	return nil
}

// cmdRequests: requests N checks that the scripted server got N requests
// (! requests N: any other number).
func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: requests N")
	}
	n := len(ts.Value(serverKey{}).(*serverRef).srv.Requests())
	if (strconv.Itoa(n) == args[0]) == neg {
		ts.Fatalf("the scripted server got %d requests (want %s%s)", n, map[bool]string{true: "not ", false: ""}[neg], args[0])
	}
}

// cmdLastModel: lastmodel ID checks the model the last request named.
func cmdLastModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lastmodel ID")
	}
	reqs := ts.Value(serverKey{}).(*serverRef).srv.Requests()
	if len(reqs) == 0 {
		ts.Fatalf("the scripted server got no request")
	}
	if got := reqs[len(reqs)-1].Model(); got != args[0] {
		ts.Fatalf("the last request named model %q, want %q", got, args[0])
	}
}

// cmdBody: body N REGEX checks that the Nth main request (from 1; last:
// the last one) has a raw body matching REGEX (! body: does not).
func cmdBody(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: body N|last REGEX")
	}
	reqs := ts.Value(serverKey{}).(*serverRef).srv.MainRequests()
	i := len(reqs)
	if args[0] != "last" {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 {
			ts.Fatalf("body %s: give a request number from 1, or last", args[0])
		}
		i = n
	}
	if i < 1 || i > len(reqs) {
		ts.Fatalf("body %s: the scripted server got %d main requests", args[0], len(reqs))
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	body := reqs[i-1].RawBody
	if re.Match(body) == neg {
		if len(body) > 4000 {
			body = append(body[:4000:4000], "…"...)
		}
		ts.Fatalf("request %d's body %s %q:\n%s", i, map[bool]string{true: "matches", false: "does not match"}[neg], args[1], body)
	}
}

// cmdResultID: resultid VAR sets $VAR to the session id of the last result
// event on the last command's stdout.
func cmdResultID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: resultid VAR")
	}
	r := runResult{Events: parseEvents([]byte(ts.ReadFile("stdout")))}
	id := r.Result().SessionID
	if id == "" {
		ts.Fatalf("no result event with a session id on stdout")
	}
	ts.Setenv(args[0], id)
}
