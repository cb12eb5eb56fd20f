package app

import (
	"bytes"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/strictjson"
)

// decodeSection decodes a raw config section, naming its file in errors.
func decodeSection(c *config.Config, key string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := strictjson.Check(raw, v); err != nil {
		return sectionError(c.SectionSource(key), key, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &config.Error{File: c.SectionSource(key), Field: key, Msg: err.Error()}
	}
	return nil
}
