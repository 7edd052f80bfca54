package host

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// self is the running executable, which serves the built-in plugins, and
// its checksum; both are found once per process.
var self struct {
	once      sync.Once
	path, sum string
	err       error
}

func findSelf() {
	self.once.Do(func() {
		p, err := os.Executable()
		if err == nil {
			p, err = filepath.EvalSymlinks(p)
		}
		if err != nil {
			self.err = fmt.Errorf("cannot find the running assay executable to serve built-in plugins: %w", err)
			return
		}
		self.path = p
		if self.sum, err = FileSHA256(p); err != nil {
			self.err = fmt.Errorf("cannot read the running assay executable %s: %w", p, err)
		}
	})
}

// Self returns the running executable: the assay binary, whose hidden
// plugin mode (package plugins/builtin) serves every built-in plugin.
func Self() (string, error) {
	findSelf()
	return self.path, self.err
}

// SelfSHA256 returns the running executable's SHA-256 in hex, the checksum
// a built-in plugin's process is verified against when it starts.
func SelfSHA256() (string, error) {
	findSelf()
	return self.sum, self.err
}
