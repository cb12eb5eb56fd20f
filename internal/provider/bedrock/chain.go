package bedrock

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"
)

// The AWS credential chain, in the AWS CLI's order, without
// github.com/aws/aws-sdk-go-v2/config: that package links the STS, SSO,
// SSO-OIDC and sign-in clients, whose endpoint tables are built by package
// initialisers on every start of tandem (~300 KB and ~0.5 ms), used or not.
// The sources that need those services (SSO, assumed roles, web identity)
// are delegated to the AWS CLI (`aws configure export-credentials`), which
// a user of them has installed and logged in with.
//
//  1. AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN
//  2. AWS_WEB_IDENTITY_TOKEN_FILE (EKS, GitHub OIDC): through the CLI
//  3. the profile (Options.Profile, AWS_PROFILE, "default") in the shared
//     credentials and config files: static keys, credential_process, or
//     (sso_*, role_arn, web_identity_token_file) through the CLI
//  4. ECS/EKS container credentials (AWS_CONTAINER_CREDENTIALS_*_URI)
//  5. the EC2 instance role (IMDS), unless AWS_EC2_METADATA_DISABLED=true
//
// The region is Options.Region, AWS_REGION, AWS_DEFAULT_REGION, or the
// profile's.

// awsSetup is what the chain found.
type awsSetup struct {
	creds  aws.CredentialsProvider
	region string
	source string // for messages: "environment", "profile work", ...
}

func loadAWS(getenv func(string) string, profile string) (awsSetup, error) {
	// A profile named in tandem's config wins over the environment's keys;
	// AWS_PROFILE does not (as in the AWS SDKs).
	explicitProfile := profile != ""
	if profile == "" {
		profile = getenv("AWS_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	home, _ := os.UserHomeDir()
	if h := getenv("HOME"); h != "" {
		home = h
	}
	credFile := orDefault(getenv("AWS_SHARED_CREDENTIALS_FILE"), filepath.Join(home, ".aws", "credentials"))
	confFile := orDefault(getenv("AWS_CONFIG_FILE"), filepath.Join(home, ".aws", "config"))
	creds, err := readINI(credFile, false)
	if err != nil {
		return awsSetup{region: getenv("AWS_REGION")}, err
	}
	conf, err := readINI(confFile, true)
	if err != nil {
		return awsSetup{region: getenv("AWS_REGION")}, err
	}
	section := map[string]string{}
	for k, v := range conf[profile] {
		section[k] = v
	}
	for k, v := range creds[profile] {
		section[k] = v
	}
	out := awsSetup{region: cmp.Or(cmp.Or(getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION")), section["region"])}
	cli := func(source string) aws.CredentialsProvider {
		out.source = source + " (through `aws configure export-credentials`)"
		return aws.NewCredentialsCache(processcreds.NewProvider("aws configure export-credentials --format process --profile " + profile))
	}
	switch id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); {
	case id != "" && secret != "" && !explicitProfile:
		out.creds, out.source = credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN")), "environment"
	case getenv("AWS_WEB_IDENTITY_TOKEN_FILE") != "" && !explicitProfile:
		out.creds = cli("web identity")
	case section["aws_access_key_id"] != "" && section["aws_secret_access_key"] != "":
		out.creds, out.source = credentials.NewStaticCredentialsProvider(section["aws_access_key_id"],
			section["aws_secret_access_key"], section["aws_session_token"]), "profile "+profile
	case section["credential_process"] != "":
		out.creds, out.source = aws.NewCredentialsCache(processcreds.NewProvider(section["credential_process"])), "profile "+profile+" credential_process"
	case section["sso_session"] != "" || section["sso_start_url"] != "" || section["role_arn"] != "" || section["web_identity_token_file"] != "":
		out.creds = cli("profile " + profile)
	case explicitProfile:
		return out, fmt.Errorf("AWS profile %q has no credentials in %s or %s", profile, credFile, confFile)
	case getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != "":
		out.creds, out.source = containerCreds("http://169.254.170.2"+getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"), getenv), "container"
	case getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI") != "":
		out.creds, out.source = containerCreds(getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), getenv), "container"
	case !strings.EqualFold(getenv("AWS_EC2_METADATA_DISABLED"), "true"):
		out.creds, out.source = aws.NewCredentialsCache(ec2rolecreds.New()), "EC2 instance role"
	default:
		return out, errors.New("none found")
	}
	return out, nil
}

func containerCreds(uri string, getenv func(string) string) aws.CredentialsProvider {
	return aws.NewCredentialsCache(endpointcreds.New(uri, func(o *endpointcreds.Options) {
		o.AuthorizationToken = getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN")
		if f := getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
			o.AuthorizationTokenProvider = endpointcreds.TokenProviderFunc(func() (string, error) {
				b, err := os.ReadFile(f)
				return strings.TrimSpace(string(b)), err
			})
		}
	}))
}

// readINI reads an AWS shared file into sections of keys. In the config
// file profiles are "[profile NAME]" (and "[default]"); in the credentials
// file "[NAME]". A missing file is empty.
func readINI(path string, config bool) (map[string]map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			name := strings.TrimSpace(line[1 : len(line)-1])
			if config && name != "default" {
				p, ok := strings.CutPrefix(name, "profile ")
				if !ok {
					cur = nil // [sso-session x], [services x]: not profiles
					continue
				}
				name = strings.TrimSpace(p)
			}
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			cur = out[name]
		case cur != nil:
			if k, v, ok := strings.Cut(line, "="); ok {
				cur[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
	}
	return out, nil
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
