package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SavedFormat is the format version of a saved plan (assay plan -out).
const SavedFormat = 1

// Saved is a plan written by `assay plan -out FILE` for `assay run FILE`:
// the plan itself, and what it was compiled from, pinned, so that the run
// executes exactly this plan and refuses it when the spec or a plugin has
// changed since.
type Saved struct {
	// Format marks the file as a saved plan; a spec never has this key.
	Format int `json:"assay_saved_plan"`
	// Assay is the release and build of the assay that saved it.
	Assay string `json:"assay_version"`
	// Spec is the spec file, relative to the saved plan's directory when
	// it lies below it, else absolute.
	Spec string `json:"spec"`
	// Overrides are the command-line settings the plan was compiled with
	// (-var-file=path, -var=name=value, --set=PATH=VALUE), in order.
	Overrides []string `json:"overrides,omitempty"`
	// Files are every file the spec read (itself, the specs it extends,
	// variable files) with their SHA-256, paths as Spec's.
	Files []FileHash `json:"files"`
	// Plugins pin each plugin's executable for the platform it was saved on.
	Plugins []PluginPin `json:"plugins"`
	Plan    *Plan       `json:"plan"`
}

// FileHash is a file and its SHA-256 in hex.
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// PluginPin is the executable a plugin ran (or will run) on one platform:
// for a built-in, the assay binary itself.
type PluginPin struct {
	Name     string `json:"name"`
	Source   string `json:"source"`
	Platform string `json:"platform"`
	SHA256   string `json:"sha256"`
}

// IsSaved reports whether b looks like a saved plan rather than a spec: a
// JSON object with the saved-plan key.
func IsSaved(b []byte) bool {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var probe struct {
		Format *int `json:"assay_saved_plan"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.Format != nil
}

// ParseSaved decodes a saved plan, refusing another format and one
// without a plan.
func ParseSaved(b []byte) (*Saved, error) {
	// The formats first: a plan of another format may not decode into
	// this one's types, and its error would not say what to do.
	var probe struct {
		Format int `json:"assay_saved_plan"`
		Plan   *struct {
			FormatVersion string `json:"format_version"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not a valid saved plan (%v)", err)
	}
	if probe.Format != SavedFormat {
		return nil, fmt.Errorf("saved plan format %d, this assay reads format %d: save the plan again with assay plan -out", probe.Format, SavedFormat)
	}
	if probe.Plan != nil && probe.Plan.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("the saved plan holds a plan of format %s, this assay runs format %s: save it again with assay plan -out", probe.Plan.FormatVersion, FormatVersion)
	}
	var s Saved
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("not a valid saved plan (%v)", err)
	}
	if s.Plan == nil || len(s.Plan.Variants) == 0 || s.Spec == "" || len(s.Files) == 0 {
		return nil, fmt.Errorf("the saved plan lacks its plan, spec or files: save it again with assay plan -out")
	}
	// The hash covers the plan's meaning: an edited plan no longer has it.
	recorded := s.Plan.Hash
	s.Plan.ComputeHash()
	if s.Plan.Hash != recorded {
		return nil, fmt.Errorf("the plan in it was edited after it was saved (its hash is %s, it records %s): save it again with assay plan -out", s.Plan.Hash, recorded)
	}
	return &s, nil
}
