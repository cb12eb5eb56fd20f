package main

import (
	"log"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/feishu"
	"github.com/tandem-agent/tandem/internal/config"
)

// feishuBridge makes the bridge of the user config's feishu entry;
// secrets are its app secret and webhook keys, for the redactor.
func feishuBridge(a *app.App, f *config.FeishuBridge, logger *log.Logger) (b *bridge.Bridge, secrets []string, err error) {
	fc := feishu.Config{AppID: f.AppID, AppSecret: f.AppSecret, BaseURL: f.BaseURL}
	if w := f.Webhook; w != nil {
		fc.Webhook = &feishu.Webhook{Listen: w.Listen, VerificationToken: w.VerificationToken, EncryptKey: w.EncryptKey}
		secrets = append(secrets, w.VerificationToken, w.EncryptKey)
	}
	plat, err := feishu.New(fc)
	if err != nil {
		return nil, nil, err
	}
	secrets = append(secrets, f.AppSecret)
	b, err = bridge.New(plat, bridgeOptions(a, f.BridgeCommon, logger, nil))
	if err != nil {
		return nil, nil, err
	}
	return b, secrets, nil
}
