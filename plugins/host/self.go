package host

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// procSelfExe names, on Linux, the image the running process executes: a
// process started from it runs that very image, even where the file at
// Self's path has since been replaced or removed (an upgrade mid-run).
const procSelfExe = "/proc/self/exe"

// self is the running executable, which serves the built-in plugins, and
// its checksum; each is found once per process, the checksum only when
// asked for (hashing the binary costs about as much as starting it).
var self struct {
	once  sync.Once
	path  string
	image string // what a built-in's process is started from
	err   error

	sumOnce sync.Once
	sum     string
	sumErr  error
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
		self.path, self.image = p, p
		if runtime.GOOS == "linux" {
			if st, err := os.Stat(procSelfExe); err == nil && st.Mode().IsRegular() {
				self.image = procSelfExe
			}
		}
	})
}

// Self returns the running executable: the assay binary, whose hidden
// plugin mode (package plugins/builtin) serves every built-in plugin.
func Self() (string, error) {
	findSelf()
	return self.path, self.err
}

// selfImage returns what a built-in plugin's process is started from, and
// whether that is the running image itself (procSelfExe), so that the
// kernel, not a checksum, guarantees the plugin is this very binary.
func selfImage() (string, bool, error) {
	findSelf()
	return self.image, self.image == procSelfExe, self.err
}

// SelfSHA256 returns the SHA-256 in hex of the running image (where the
// platform names it, else of the executable at Self's path): the checksum
// a run's provenance pins for its built-in plugins.
func SelfSHA256() (string, error) {
	findSelf()
	if self.err != nil {
		return "", self.err
	}
	self.sumOnce.Do(func() {
		if self.sum, self.sumErr = FileSHA256(self.image); self.sumErr != nil {
			self.sumErr = fmt.Errorf("cannot read the running assay executable %s: %w", self.path, self.sumErr)
		}
	})
	return self.sum, self.sumErr
}
