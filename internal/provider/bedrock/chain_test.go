package bedrock

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func chainEnv(t *testing.T, kv ...string) (func(string) string, string) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "AWS_EC2_METADATA_DISABLED": "true"}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return func(k string) string { return env[k] }, home
}

func write(t *testing.T, path, body string) {
	t.Helper()
	testfiles.WriteMode(t, path, body, 0o700)
}

func retrieve(t *testing.T, s awsSetup) string {
	t.Helper()
	c, err := s.creds.Retrieve(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", s.source, err)
	}
	return c.AccessKeyID
}

// The sources of the AWS credential chain, in order, with their regions.
func TestCredentialChain(t *testing.T) {
	t.Run("environment keys", func(t *testing.T) {
		getenv, _ := chainEnv(t, "AWS_ACCESS_KEY_ID", "AKENV", "AWS_SECRET_ACCESS_KEY", "s", "AWS_DEFAULT_REGION", "ap-south-1")
		s, err := loadAWS(getenv, "")
		if err != nil || s.source != "environment" || s.region != "ap-south-1" || retrieve(t, s) != "AKENV" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("profile files", func(t *testing.T) {
		getenv, home := chainEnv(t, "AWS_PROFILE", "work", "AWS_ACCESS_KEY_ID", "AKENV", "AWS_SECRET_ACCESS_KEY", "s")
		write(t, filepath.Join(home, ".aws", "credentials"), "[default]\naws_access_key_id = AKDEF\naws_secret_access_key = d\n\n[work]\naws_access_key_id = AKWORK\naws_secret_access_key = w\n")
		write(t, filepath.Join(home, ".aws", "config"), "[default]\nregion = us-east-1\n[profile work]\nregion = eu-central-1\n[sso-session corp]\nregion = us-west-1\n")
		// AWS_PROFILE does not beat the environment's keys; a configured
		// profile does.
		if s, _ := loadAWS(getenv, ""); s.source != "environment" {
			t.Errorf("AWS_PROFILE over keys: %+v", s)
		}
		s, err := loadAWS(getenv, "work")
		if err != nil || s.region != "eu-central-1" || retrieve(t, s) != "AKWORK" {
			t.Fatalf("%+v %v", s, err)
		}
		if _, err := loadAWS(getenv, "nosuch"); err == nil || !strings.Contains(err.Error(), `"nosuch" has no credentials`) {
			t.Errorf("missing profile: %v", err)
		}
	})
	t.Run("credential_process", func(t *testing.T) {
		getenv, home := chainEnv(t)
		script := filepath.Join(home, "creds.sh")
		write(t, script, "#!/bin/sh\necho '{\"Version\": 1, \"AccessKeyId\": \"AKPROC\", \"SecretAccessKey\": \"p\", \"SessionToken\": \"t\"}'\n")
		write(t, filepath.Join(home, ".aws", "config"), "[default]\ncredential_process = "+script+"\n")
		s, err := loadAWS(getenv, "")
		if err != nil || retrieve(t, s) != "AKPROC" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("sso and roles go through the AWS CLI", func(t *testing.T) {
		getenv, home := chainEnv(t)
		write(t, filepath.Join(home, ".aws", "config"), "[profile dev]\nsso_session = corp\nsso_account_id = 1\nregion = us-west-2\n")
		s, err := loadAWS(getenv, "dev")
		if err != nil || !strings.Contains(s.source, "aws configure export-credentials") || s.region != "us-west-2" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("container credentials", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "tok" {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"AccessKeyId":"AKECS","SecretAccessKey":"e","Token":"t","Expiration":"2099-01-01T00:00:00Z"}`))
		}))
		defer srv.Close()
		getenv, _ := chainEnv(t, "AWS_CONTAINER_CREDENTIALS_FULL_URI", srv.URL+"/creds", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "tok")
		s, err := loadAWS(getenv, "")
		if err != nil || s.source != "container" || retrieve(t, s) != "AKECS" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		getenv, _ := chainEnv(t)
		if _, err := loadAWS(getenv, ""); err == nil {
			t.Error("no source, no error")
		}
	})
}
