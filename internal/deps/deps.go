//go:build tools

// Package deps pins the project's core dependencies before any package uses them.
package deps

import (
	_ "cuelang.org/go/cue"
	_ "github.com/alecthomas/participle/v2"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hashicorp/go-hclog"
	_ "github.com/hashicorp/go-plugin"
	_ "github.com/hashicorp/hcl/v2"
	_ "github.com/mattn/go-isatty"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/zclconf/go-cty/cty"
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/proto"
	_ "modernc.org/sqlite"
)
