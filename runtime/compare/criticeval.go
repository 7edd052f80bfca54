package compare

import (
	"fmt"
	"strings"

	"github.com/assay-lang/assay/runtime"
)

// criticRow picks the figures a comparison shows of a run's critic_eval
// phases, per critic side by side: at each k its Improve accuracy, Dir-3,
// F1, 5-Ladder (a 5-way critic's) and AUROC; at each threshold T its error
// recall and routed share. Each is named BLOCK.CRITIC FIGURE.
func criticRow(figs []runtime.CriticEvalFigures) []SuiteScore {
	var out []SuiteScore
	for _, f := range figs {
		block := strings.TrimPrefix(f.Phase, "critic_eval.")
		for _, c := range f.Critics {
			name := block + "." + c.Name
			for _, m := range c.Metrics {
				at := fmt.Sprintf("@k%d", m.K)
				out = append(out, SuiteScore{name + " improve_acc" + at, ptr(m.ImproveAccuracy)},
					SuiteScore{name + " dir3" + at, ptr(m.Dir3)}, SuiteScore{name + " f1" + at, m.F1})
				if c.Labels == "5way" {
					out = append(out, SuiteScore{name + " ladder5" + at, m.Ladder5})
				}
				out = append(out, SuiteScore{name + " auroc" + at, m.AUROC})
			}
			for _, r := range c.Routing {
				at := fmt.Sprintf("@T%g", r.T)
				out = append(out, SuiteScore{name + " error_recall" + at, r.ErrorRecall}, SuiteScore{name + " routed" + at, ptr(r.RoutedShare)})
			}
		}
	}
	return out
}
