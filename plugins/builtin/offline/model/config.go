package model

import (
	"fmt"
	"github.com/assay-lang/assay/plugins"

	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// errConfig marks a call whose plugin config is unusable; no retry can fix
// it.
var errConfig = fmt.Errorf("bad offline plugin config: %w", plugins.ErrConfig)

// checkConfig refuses any config: the offline model has no settings
// (pluginconfig.Offline), and a key that silently did nothing would hide a
// spec that meant another plugin.
func checkConfig(cfg map[string]any) error {
	if ps := pluginconfig.Offline.Check(cfg); len(ps) > 0 {
		return fmt.Errorf("%w: %s", errConfig, pluginconfig.Join(ps))
	}
	return nil
}
