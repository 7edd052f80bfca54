package runtime

import "github.com/assay-lang/assay/compiler/plan"

// Provenance is what a run was made from, recorded once when it starts
// (a resume keeps it) so that a result can be traced to its inputs: the
// spec's commit and whether its files differed from it, the plan's hash,
// the Assay build, the command-line overrides, and each plugin's
// executable checksum.
type Provenance struct {
	// Spec is the spec file, or the saved plan's spec (SavedPlan).
	Spec string `json:"spec"`
	// SavedPlan is the saved plan (assay plan -out) the run executed.
	SavedPlan string `json:"saved_plan,omitempty"`
	// GitCommit is HEAD of the repository holding the spec; empty when
	// there is none, and NoCommit says why.
	GitCommit string `json:"git_commit,omitempty"`
	// GitDirty is true when a spec file differed from GitCommit
	// (modified, staged or untracked), or when there is no commit.
	GitDirty   bool     `json:"git_dirty"`
	DirtyFiles []string `json:"dirty_files,omitempty"`
	NoCommit   string   `json:"no_commit,omitempty"`
	// PlanHash is the hash of the plan as it applies to the run's variant
	// (plan.VariantHash); for a sweep, SweepHash is the whole plan's.
	PlanHash  string `json:"plan_hash"`
	SweepHash string `json:"sweep_hash,omitempty"`
	Assay     string `json:"assay_version"`
	// Overrides are the settings given on the command line (-var-file,
	// -var, --set), in order, as the plan was compiled with them.
	Overrides []string `json:"overrides,omitempty"`
	// Plugins are the executables the plugins run, by checksum; for a
	// built-in, the assay binary itself.
	Plugins []plan.PluginPin `json:"plugins,omitempty"`
}

// metaProvenance is the journal key of a run's provenance.
const metaProvenance = "provenance"
