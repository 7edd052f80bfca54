package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/assay-lang/assay/plugins"
)

// Record is one measured outcome: a proposal tried on a task and the gain it
// achieved over the task's baseline (b_e - l_t for a lower-is-better metric).
// Records make up an RWM's context and a proposer's history.
type Record struct {
	Task     string           `json:"task"`
	Env      string           `json:"env,omitempty"`
	Proposal plugins.Proposal `json:"proposal"`
	Gain     float64          `json:"gain"`
	// Infeasible marks a proposal that did not build or crashed; Gain is
	// then meaningless.
	Infeasible bool `json:"infeasible,omitempty"`
	// Predicted marks a record whose gain came from a world model rather
	// than a real run (state-pool expansion).
	Predicted bool `json:"predicted,omitempty"`
}

// ProposeRequest asks the proposer for N proposals for one state.
type ProposeRequest struct {
	Task string `json:"task"`
	Env  string `json:"env,omitempty"`
	// State is the key of the state (task plus history or parent); it also
	// salts the sampling seed, so two states at one seed differ.
	State string `json:"state"`
	// Parent is the current solution the proposals build on (nil: the
	// task's baseline configuration).
	Parent *plugins.Proposal `json:"parent,omitempty"`
	// History lists earlier proposals of this state and their outcomes.
	History []Record `json:"history,omitempty"`
	// Records are real records of any task put in the prompt for
	// in-context learning (an evaluation's icl arm); nil otherwise.
	Records []Record `json:"records,omitempty"`
	// Knobs are what the trainer lets a proposal change.
	Knobs []plugins.Knob `json:"knobs"`
	N     int            `json:"n"`
	// Inspirations are verified programs shown beside the parent (an
	// evolution loop's top programs and archive elites), with their gains.
	Inspirations []Record `json:"inspirations,omitempty"`
	// Source, in source mode, is the program the proposals change: the
	// parent's commit (the seed program's for the baseline), its editable
	// paths and their files, bounded as a builder's are.
	Source *SourceContext `json:"source,omitempty"`
	// Format, when set, is how the answer is read: IdeasText (the answer
	// is one idea) or IdeasList (each item of its numbered or bulleted
	// list is one), by ParseIdeas. Empty: the answer is a ProposeResponse
	// as JSON.
	Format string `json:"format,omitempty"`
}

// For a policy update (plugins.UpdateRequest), each plugins.Sample.State is
// this request, encoded with Encode, exactly as it was sent: the gradient of
// log pi(proposal | state) needs the whole state, not a key.

// ProposeResponse carries the proposals, in sampling order.
type ProposeResponse struct {
	Proposals []plugins.Proposal `json:"proposals"`
}

// PredictRequest asks the RWM for the gain of a proposal on a task, given
// the records in its context.
type PredictRequest struct {
	Task     string            `json:"task"`
	Env      string            `json:"env,omitempty"`
	Records  []Record          `json:"records"`
	Parent   *plugins.Proposal `json:"parent,omitempty"`
	Proposal plugins.Proposal  `json:"proposal"`
}

// PredictResponse is the predicted gain and how sure the model is of it
// (0: a guess, 1: certain).
type PredictResponse struct {
	PredictedGain float64 `json:"predicted_gain"`
	Confidence    float64 `json:"confidence"`
}

// Label spaces of the critic.
const (
	Labels3 = "3way"
	Labels5 = "5way"
)

// 3-way labels.
const (
	LabelImprove = "improve"
	LabelTie     = "tie"
	LabelLose    = "lose"
)

// 5-way ladder labels, best first.
const (
	LabelBigWin    = "BigWin"
	LabelMediumWin = "MediumWin"
	LabelSmallWin  = "SmallWin"
	Label5Tie      = "Tie"
	Label5Lose     = "Lose"
)

// LabelSet returns the labels of a label space, best first, or nil for an
// unknown space.
func LabelSet(space string) []string {
	switch space {
	case Labels3:
		return []string{LabelImprove, LabelTie, LabelLose}
	case Labels5:
		return []string{LabelBigWin, LabelMediumWin, LabelSmallWin, Label5Tie, Label5Lose}
	}
	return nil
}

// LabelRank is a label's position in its space, 0 for the best; -1 when the
// label is not in the space.
func LabelRank(space, label string) int {
	for i, l := range LabelSet(space) {
		if l == label {
			return i
		}
	}
	return -1
}

// CritiqueRequest asks the critic whether Child beats Parent on Task.
type CritiqueRequest struct {
	Task   string           `json:"task"`
	Env    string           `json:"env,omitempty"`
	Parent plugins.Proposal `json:"parent"`
	Child  plugins.Proposal `json:"child"`
	// Summary is the summarizer's neutral description of the child, when
	// the pipeline has one.
	Summary string `json:"summary,omitempty"`
	// Labels is Labels3 or Labels5.
	Labels string `json:"labels"`
	// Records are examples with known outcomes a critic may use in context.
	Records []Record `json:"records,omitempty"`
	// Verdict, when set, is how the answer is read: an RE2 pattern whose
	// first group, in its first match in the answer's free text, is the
	// label (ParseVerdict). Empty: the answer is a CritiqueResponse as JSON.
	Verdict string `json:"verdict,omitempty"`
	// Verdicts, when set, read the label from Verdict's named groups
	// instead of its first group (ParseVerdictGroups).
	Verdicts []VerdictRule `json:"verdicts,omitempty"`
	// Hint is a critic training's word to its teacher (CritiqueHint): a
	// verdict ruled out, or the label revealed. Empty for every other call.
	Hint *CritiqueHint `json:"hint,omitempty"`
}

// CritiqueResponse is one sampled verdict.
type CritiqueResponse struct {
	Label  string `json:"label"`
	Reason string `json:"reason,omitempty"`
}

// SummarizeRequest asks for a neutral description of a proposal, free of
// the proposer's advocacy.
type SummarizeRequest struct {
	Task     string           `json:"task"`
	Proposal plugins.Proposal `json:"proposal"`
	// Env, Description and Domain are set when a critic's criteria_role is
	// asked for a task's understanding and criteria: the proposal is then
	// the task itself (its ID "task").
	Env         string `json:"env,omitempty"`
	Description string `json:"description,omitempty"`
	Domain      string `json:"domain,omitempty"`
}

// SummarizeResponse is the description.
type SummarizeResponse struct {
	Summary string `json:"summary"`
}

// ImplementRequest asks the builder/implementer to turn an idea into
// concrete edits of the trainer's knobs (or a patch).
type ImplementRequest struct {
	Task     string           `json:"task"`
	Env      string           `json:"env,omitempty"`
	Proposal plugins.Proposal `json:"proposal"`
	Knobs    []plugins.Knob   `json:"knobs"`
	// Repair counts the repairs of a build that failed (0: the first
	// build); Failure is why the last attempt failed. A repair must keep
	// the idea: it fixes the implementation, not the proposal.
	Repair  int    `json:"repair,omitempty"`
	Failure string `json:"failure,omitempty"`
	// Source, in source mode, is the parent program the change applies
	// to; the builder answers with a unified diff (ImplementResponse.Patch)
	// instead of knob edits.
	Source *SourceContext `json:"source,omitempty"`
}

// SourceContext is the parent program a builder changes: its commit, the
// paths a patch may change (git pathspec globs), and the editable files'
// contents, each cut to a bound (Truncated marks one that was cut).
type SourceContext struct {
	Commit   string       `json:"commit"`
	Editable []string     `json:"editable"`
	Files    []SourceFile `json:"files"`
}

// SourceFile is one editable file of the parent program.
type SourceFile struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	Truncated bool   `json:"truncated,omitempty"`
}

// ImplementResponse is the implemented proposal, or Infeasible with a reason
// when the implementation failed; the runtime records an infeasible build
// as an infeasible run without starting a trainer.
type ImplementResponse struct {
	Proposal   plugins.Proposal `json:"proposal"`
	Infeasible bool             `json:"infeasible,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	// Patch is, in source mode, the change as a unified diff against the
	// parent program (paths a/PATH and b/PATH from the repository's top).
	Patch string `json:"patch,omitempty"`
	// Files and Edits are, in source mode, the rest of the change: whole
	// files written anew, then SEARCH/REPLACE edits in order, which the
	// runtime makes in the candidate's worktree after Patch
	// (ParseImplement reads them from an answer).
	Files []WholeFile  `json:"files,omitempty"`
	Edits []SourceEdit `json:"edits,omitempty"`
}

// SourceEdit is one SEARCH/REPLACE edit of a file of the parent program:
// the one place Search's lines are in the file become Replace's lines (an
// empty Search creates a file that is not there). An empty Path is the
// one file shown that holds Search.
type SourceEdit struct {
	Path    string `json:"path,omitempty"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
}

// WholeFile is a file of the parent program written anew, whole.
type WholeFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Encode marshals a payload.
func Encode(v any) ([]byte, error) {
	return json.Marshal(v)
}

// Decode unmarshals data into v, rejecting unknown fields and trailing data.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("payload: %T: %w", v, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("payload: %T: trailing data after the JSON value", v)
	}
	return nil
}

// Tokens estimates the token count of a text (about four bytes per token),
// for models that do not count their own.
func Tokens(s string) int {
	return (len(s) + 3) / 4
}

// AppendJSONString appends s to b as encoding/json writes it: plain ASCII
// as it is, and anything encoding/json would escape (controls, quotes,
// HTML's <>&, non-ASCII) through encoding/json itself. Hot encoders (the
// runtime's call records, the simulated world's answers) use it to skip
// reflection for the common case.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
