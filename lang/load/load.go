package load

import (
	"os"
	"path/filepath"
	"strings"

	"assay/lang/cue"
	"assay/lang/diag"
	"assay/lang/hcl"
	"assay/lang/spec"
)

// Options are the command-line inputs every front end understands.
type Options struct {
	// Vars are "name=value" assignments from -var, applied after VarFiles.
	Vars []string
	// VarFiles are paths from -var-file, applied in order.
	VarFiles []string
}

// Sources maps a file name to its content, for diagnostic snippets
// (diag.Diagnostics.Annotate).
type Sources map[string][]byte

// Diagnostic codes of this package.
const (
	codeFileRead = "E_FILE_READ"
	codeFormat   = "E_SPEC_FORMAT"
)

// Load reads the spec at path with the front end its extension selects and
// returns it with the sources it read. As with the front ends, the spec may
// be a best-effort partial result when there are errors.
func Load(path string, opts Options) (*spec.Spec, Sources, diag.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read spec: %v", unwrapPathError(err)).
			WithDetail("check the path; specs are .hcl files, .cue files or directories of .cue files")}
	}
	switch {
	case info.IsDir() || strings.EqualFold(filepath.Ext(path), ".cue"):
		return loadCUE(path, opts)
	case strings.EqualFold(filepath.Ext(path), ".hcl"):
		return loadHCL(path, opts)
	}
	return nil, nil, diag.Diagnostics{diag.Errorf(codeFormat, diag.Range{Filename: path}, "cannot tell the spec language of %q from its name", path).
		WithDetail("name HCL specs *.hcl and CUE specs *.cue (or pass a directory of .cue files)")}
}

func loadHCL(path string, opts Options) (*spec.Spec, Sources, diag.Diagnostics) {
	src := Sources{}
	if b, err := os.ReadFile(path); err == nil {
		src[path] = b
	}
	for _, f := range opts.VarFiles {
		if b, err := os.ReadFile(f); err == nil {
			src[f] = b
		}
	}
	s, diags := hcl.LoadFile(path, hcl.Options{Vars: opts.Vars, VarFiles: opts.VarFiles})
	return s, src, diags
}

func loadCUE(path string, opts Options) (*spec.Spec, Sources, diag.Diagnostics) {
	s, diags := cue.LoadFile(path, cue.Options{Vars: opts.Vars, VarFiles: opts.VarFiles})
	src := Sources{}
	if s != nil {
		for _, f := range s.Files {
			if b, err := os.ReadFile(f); err == nil {
				src[f] = b
			}
		}
	} else if b, err := os.ReadFile(path); err == nil {
		src[path] = b
	}
	for _, f := range opts.VarFiles {
		if b, err := os.ReadFile(f); err == nil {
			src[f] = b
		}
	}
	return s, src, diags
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
