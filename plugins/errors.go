package plugins

import "errors"

// ErrUnsupported is returned by a plugin for a call its kind does not serve.
var ErrUnsupported = errors.New("not supported by this plugin")
