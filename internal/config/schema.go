package config

import _ "embed"

//go:embed config.schema.json
var schema []byte

// Schema returns the published JSON schema of tandem's config files.
func Schema() []byte { return schema }
