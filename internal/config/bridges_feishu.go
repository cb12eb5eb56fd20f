package config

import "fmt"

// FeishuBridge is a Feishu/Lark app (the "feishu" entry of "bridges"),
// receiving events over the long connection.
type FeishuBridge struct {
	BridgeCommon
	AppID string `json:"app_id"`
	// AppSecret (or AppSecretEnv, the variable holding it) is the app's
	// secret from the developer console (Credentials).
	AppSecret    string `json:"app_secret,omitempty"`
	AppSecretEnv string `json:"app_secret_env,omitempty"`
	// BaseURL is the open platform ("": https://open.feishu.cn;
	// https://open.larksuite.com for Lark).
	BaseURL string `json:"base_url,omitempty"`
}

func (f *FeishuBridge) check(getenv func(string) string, home string) error {
	s, err := resolve(f.AppSecret, f.AppSecretEnv, getenv, "app_secret")
	if err != nil {
		return err
	}
	if f.AppID == "" || s == "" {
		return fmt.Errorf("app_id and app_secret_env (the variable holding the app secret) are needed: find them in the developer console under Credentials")
	}
	f.AppSecret = s
	return f.BridgeCommon.check(home)
}
