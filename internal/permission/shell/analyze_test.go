package shell

import (
	"reflect"
	"strings"
	"testing"
)

func TestArgvAfterQuoteRemoval(t *testing.T) {
	cases := []struct {
		cmd  string
		want [][]string
	}{
		{`git diff --outpu\t=/tmp/x`, [][]string{{"git", "diff", "--output=/tmp/x"}}},
		{`$'\x72m' -rf x`, [][]string{{"rm", "-rf", "x"}}},
		{`echo "/usr"'/'"local"/bin`, [][]string{{"echo", "/usr/local/bin"}}},
		{`rg -n "foo" -g"*.py"`, [][]string{{"rg", "-n", "foo", "-g*.py"}}},
		{"ls && pwd | wc -l", [][]string{{"ls"}, {"pwd"}, {"wc", "-l"}}},
		{"sudo env X=1 rm f", [][]string{{"sudo", "env", "X=1", "rm", "f"}, {"env", "X=1", "rm", "f"}, {"rm", "f"}}},
		{"bash -c 'ls; rm x'", [][]string{{"bash", "-c", "ls; rm x"}, {"ls"}, {"rm", "x"}}},
	}
	for _, c := range cases {
		a, err := Analyze(c.cmd, "/w", "/h")
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		var got [][]string
		for _, cm := range a.Commands {
			got = append(got, cm.Argv)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: argv %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestAnalysisDetails(t *testing.T) {
	a, _ := Analyze("echo x > out.txt 2>/dev/null", "/w", "/h")
	if c := a.Commands[0]; !c.Writes || !reflect.DeepEqual(c.WriteTargets, []string{"/w/out.txt"}) || !c.FileOp || c.ReadOnly {
		t.Errorf("%+v", c)
	}
	a, _ = Analyze("cat ~/.ssh/config", "/w", "/h")
	if c := a.Commands[0]; !c.Sensitive || a.ReadOnly() {
		t.Errorf("%+v", c)
	}
	a, _ = Analyze("sed -n '1e id' f", "/w", "/h")
	if a.ReadOnly() || !strings.Contains(strings.Join(a.Reasons(), ";"), "`e`") {
		t.Errorf("reasons: %v", a.Reasons())
	}
	// Hundreds of parts are judged one by one, not capped.
	long := strings.Repeat("true && ", 500) + "rm x"
	a, err := Analyze(long, "/w", "/h")
	if err != nil || len(a.Commands) != 501 || a.ReadOnly() {
		t.Errorf("long chain: %d commands, %v", len(a.Commands), err)
	}
	if _, err := Analyze(strings.Repeat("x", MaxCommandBytes+1), "/w", "/h"); err == nil {
		t.Errorf("over-long command must be refused")
	}
	if _, err := Analyze("echo 'unterminated", "/w", "/h"); err == nil {
		t.Errorf("parse errors must be reported")
	}
	for _, ok := range []string{"1,10p", "/re/p", "s/a/b/g", "$p", "1~2p;3q", "/a/,/b/d"} {
		if why := sedScriptUnsafe(ok); why != "" {
			t.Errorf("sed %q: %s", ok, why)
		}
	}
	for _, bad := range []string{"1e id", "s/a/b/e", "s/a/b/w f", "w f", "r /etc/passwd", "1!e x", "s|a|b|e"} {
		if sedScriptUnsafe(bad) == "" {
			t.Errorf("sed %q accepted", bad)
		}
	}
}
