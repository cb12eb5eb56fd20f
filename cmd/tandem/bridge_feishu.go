package main

import (
	"log"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/feishu"
	"github.com/tandem-agent/tandem/internal/config"
)

// feishuBridge makes the bridge of the user config's feishu entry.
func feishuBridge(a *app.App, f *config.FeishuBridge, logger *log.Logger) (*bridge.Bridge, error) {
	plat, err := feishu.New(feishu.Config{AppID: f.AppID, AppSecret: f.AppSecret, BaseURL: f.BaseURL})
	if err != nil {
		return nil, err
	}
	return bridge.New(plat, bridgeOptions(a, f.BridgeCommon, logger, nil))
}
