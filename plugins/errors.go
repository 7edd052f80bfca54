package plugins

import "errors"

// ErrUnsupported is returned by a plugin for a call its kind does not serve.
var ErrUnsupported = errors.New("not supported by this plugin")

// ErrInvalidConfig is returned by a plugin whose config (the spec's plugin
// block) cannot work: retrying or restarting the plugin cannot fix it.
var ErrInvalidConfig = errors.New("invalid plugin config")
