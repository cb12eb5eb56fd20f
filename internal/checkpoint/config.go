package checkpoint

import "fmt"

// Config is the "checkpoints" section of tandem's config files.
type Config struct {
	// Disabled turns checkpoints off for the folder.
	Disabled bool `json:"disabled,omitempty"`
	// Keep is how many checkpoints a session keeps (oldest dropped first).
	Keep int `json:"keep,omitempty"`
	// MaxFileBytes: larger files are named in a checkpoint but not saved.
	MaxFileBytes int64 `json:"max_file_bytes,omitempty"`
	// MaxFiles caps the files a workspace scan looks at; past it the scan
	// for shell-made changes is off for the session (tool edits still count).
	MaxFiles int `json:"max_files,omitempty"`
	// NoWatch makes every scan stat the whole workspace instead of asking
	// the kernel what changed (inotify): for file systems where other
	// machines change files (network mounts), whose changes inotify misses.
	NoWatch bool `json:"no_watch,omitempty"`
	// Ignore adds gitignore-style patterns to the scan's ignore rules
	// (after the defaults, so "!build/" brings a default back).
	Ignore []string `json:"ignore,omitempty"`
}

// Defaults.
const (
	DefaultKeep         = 100
	DefaultMaxFileBytes = 2 << 20
	DefaultMaxFiles     = 50000
)

// defaultIgnore are skipped by the workspace scan in every folder, on top
// of its .gitignore files: version control, dependencies, caches and the
// usual build outputs, which shell commands rewrite wholesale and which can
// be regenerated.
var defaultIgnore = []string{
	".git/", ".hg/", ".svn/", "node_modules/", "__pycache__/", ".venv/", "venv/", ".tox/",
	".mypy_cache/", ".pytest_cache/", ".next/", ".nuxt/", ".gradle/", ".terraform/", ".cache/",
	"dist/", "build/", "target/", "coverage/", "*.pyc", "*.o", "*.class",
}

// Validate rejects negative limits.
func (c Config) Validate() error {
	switch {
	case c.Keep < 0:
		return fmt.Errorf("keep must be 1 or more (0 means the default, %d)", DefaultKeep)
	case c.MaxFileBytes < 0:
		return fmt.Errorf("max_file_bytes must be positive (0 means the default, %d)", DefaultMaxFileBytes)
	case c.MaxFiles < 0:
		return fmt.Errorf("max_files must be positive (0 means the default, %d)", DefaultMaxFiles)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Keep == 0 {
		c.Keep = DefaultKeep
	}
	if c.MaxFileBytes == 0 {
		c.MaxFileBytes = DefaultMaxFileBytes
	}
	if c.MaxFiles == 0 {
		c.MaxFiles = DefaultMaxFiles
	}
	return c
}
