package config

import "fmt"

// FeishuBridge is a Feishu/Lark app (the "feishu" entry of "bridges"),
// receiving events over the long connection, or by webhook.
type FeishuBridge struct {
	BridgeCommon
	AppID string `json:"app_id"`
	// AppSecret (or AppSecretEnv, the variable holding it) is the app's
	// secret from the developer console (Credentials).
	AppSecret    string `json:"app_secret,omitempty"`
	AppSecretEnv string `json:"app_secret_env,omitempty"`
	// BaseURL is the open platform ("": https://open.feishu.cn;
	// https://open.larksuite.com for Lark).
	BaseURL string         `json:"base_url,omitempty"`
	Webhook *FeishuWebhook `json:"webhook,omitempty"`
}

// FeishuWebhook receives events and card callbacks by HTTP callback
// instead of the long connection.
type FeishuWebhook struct {
	Listen string `json:"listen"`
	// VerificationToken (or its variable) is the app's Verification
	// Token; EncryptKey (or its variable) its Encrypt Key, "" when the
	// app has none.
	VerificationToken    string `json:"verification_token,omitempty"`
	VerificationTokenEnv string `json:"verification_token_env,omitempty"`
	EncryptKey           string `json:"encrypt_key,omitempty"`
	EncryptKeyEnv        string `json:"encrypt_key_env,omitempty"`
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
	if w := f.Webhook; w != nil {
		tok, err := resolve(w.VerificationToken, w.VerificationTokenEnv, getenv, "verification_token")
		if err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
		key, err := resolve(w.EncryptKey, w.EncryptKeyEnv, getenv, "encrypt_key")
		if err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
		if w.Listen == "" || tok == "" {
			return fmt.Errorf("webhook: listen and verification_token (or verification_token_env) are both needed (Events and Callbacks, Encryption Strategy, in the developer console); leave webhook out to use the long connection")
		}
		w.VerificationToken, w.EncryptKey = tok, key
	}
	return f.BridgeCommon.check(home)
}
