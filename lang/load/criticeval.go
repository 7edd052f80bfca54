package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// MaxCriticEvalDataBytes is the most a critic evaluation's pairs file may
// hold.
const MaxCriticEvalDataBytes = 64 << 20

const codeCriticEvalData = "E_CRITIC_EVAL_DATA"

// readCriticEvalData reads the pairs file each critic_eval block names,
// relative to the file that writes it, as a critic evaluation will read
// it (critic.ReadPairs): the compiler counts the calls from its splits,
// and the plan holds its digest, so a run refuses a file that changed
// since. The file is not a source: it is data, not spec text.
func (r *resolver) readCriticEvalData(s *spec.Spec) diag.Diagnostics {
	if s == nil {
		return nil
	}
	var ds diag.Diagnostics
	for _, ce := range s.CriticEvals {
		if !ce.Data.Set {
			continue
		}
		path := ce.Data.V
		if !filepath.IsAbs(path) && ce.Data.Range.Filename != "" {
			path = filepath.Join(filepath.Dir(ce.Data.Range.Filename), path)
		}
		b, ok := r.overlay(path)
		if !ok {
			var err error
			if b, err = budget.ReadFile(path, MaxCriticEvalDataBytes); err != nil {
				ds = append(ds, diag.Errorf(codeCriticEvalData, ce.Data.Range, "critic_eval %q: cannot read pairs file %s: %v", ce.Name, ce.Data.V, unwrapPathError(err)).
					WithDetail("The data is a pairs file (docs/pairs.md) of at most 64 MiB, relative to the file that writes it; write one with assay export pairs."))
				continue
			}
		}
		ps, err := critic.ReadPairs(bytes.NewReader(b))
		if err != nil {
			ds = append(ds, diag.Errorf(codeCriticEvalData, ce.Data.Range, "critic_eval %q: pairs file %s: %v", ce.Name, ce.Data.V, err).
				WithDetail("Each line is one pair in the schema of assay export pairs (docs/pairs.md), with a label3 of improve, tie or lose."))
			continue
		}
		splits := map[string]int{}
		for _, p := range ps {
			splits[p.Split]++
		}
		sum := sha256.Sum256(b)
		ce.DataPath, ce.DataDigest, ce.DataSplits, ce.DataRead = path, "sha256:"+hex.EncodeToString(sum[:]), splits, true
	}
	return ds
}
