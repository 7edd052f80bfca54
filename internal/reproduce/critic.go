package main

import (
	"fmt"

	"github.com/assay-lang/assay/runtime"
)

// criticColumns are a static critic evaluation's figures: the metrics at
// the critic's most votes, its routing at T = 0.25.
var criticColumns = []column{{"ce_acc", "Improve acc."}, {"ce_dir3", "Dir-3"}, {"ce_f1", "F1"}, {"ce_ladder5", "5-Ladder"},
	{"ce_auroc", "AUROC"}, {"ce_recall", "error recall, T 0.25"}, {"ce_routed", "routed share, T 0.25"}}

// criticFigures adds critic name's figures of run id's critic_eval phase
// to f, under criticColumns' keys, and its AUROC at each k as
// "ce_auroc_kK"; an undefined figure is left out.
func criticFigures(dir, id, name string, f map[string]float64) error {
	rep, err := runtime.LoadReport(dir, id)
	if err != nil {
		return err
	}
	for _, ce := range rep.CriticEvals {
		for _, c := range ce.Critics {
			if c.Name != name || len(c.Metrics) == 0 {
				continue
			}
			for _, m := range c.Metrics {
				if m.AUROC != nil {
					f[fmt.Sprintf("ce_auroc_k%d", m.K)] = *m.AUROC
				}
			}
			m := c.Metrics[len(c.Metrics)-1]
			f["ce_acc"], f["ce_dir3"] = m.ImproveAccuracy, m.Dir3
			for key, p := range map[string]*float64{"ce_f1": m.F1, "ce_ladder5": m.Ladder5, "ce_auroc": m.AUROC} {
				if p != nil {
					f[key] = *p
				}
			}
			for _, r := range c.Routing {
				if r.T == 0.25 {
					f["ce_routed"] = r.RoutedShare
					if r.ErrorRecall != nil {
						f["ce_recall"] = *r.ErrorRecall
					}
				}
			}
			return nil
		}
	}
	return fmt.Errorf("run %s evaluated no critic %q", id, name)
}
