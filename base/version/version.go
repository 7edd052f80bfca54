package version

import (
	"runtime/debug"
	"strings"
)

// Release is Assay's release. A spec's lock file records it for every
// built-in plugin, since built-ins are served by the assay binary itself:
// a lock made by another release is refused until `assay init -upgrade`.
// Bump it whenever a built-in plugin's behaviour changes.
const Release = "0.1.0"

// Build describes this binary for a run's provenance: the release, and the
// source revision the Go toolchain stamped into it when it was built from a
// git checkout ("+dirty" when that checkout had uncommitted changes).
func Build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Release
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return Release
	}
	var b strings.Builder
	b.WriteString(Release + " (" + rev)
	if modified == "true" {
		b.WriteString("+dirty")
	}
	b.WriteString(")")
	return b.String()
}
