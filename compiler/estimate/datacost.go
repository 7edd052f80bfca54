package estimate

import "github.com/assay-lang/assay/compiler/plan"

// DataCost is what making one evaluated arm's data costs, the comparison
// seed 000 draws between its trained policy and in-context baselines
// (LM2LM $40.1k against $39.5k for K = 200 records and $60.0k for K =
// 300). The policy's data are every real run and LLM call of the phases
// before the evaluation that make records or score proposals (seed
// records, the loop, calibration), without its policy updates; an
// in-context arm's are its K records, each made as a seed record is.
// RunHours are the records' real runs one after another, the hours the
// paper quotes (343 for LM2LM, 510 for K = 300); WallHours the phases'
// wall-clock hours at the executor's concurrency.
type DataCost struct {
	Arm       string     `json:"arm"`
	Records   plan.Count `json:"records"`
	GPUHours  plan.Count `json:"gpu_hours"`
	USD       plan.Count `json:"usd"`
	RunHours  plan.Count `json:"run_hours"`
	WallHours plan.Count `json:"wall_hours"`
}

// dataShare is a phase's real runs, their GPU-hours and dollars, and the
// phase's dollars and wall-clock hours, before any policy update.
type dataShare struct {
	runs, gpuHours, usdGPU, usd, runHours, wall plan.Count
}

func (d *dataShare) add(o dataShare) {
	d.runs, d.gpuHours, d.usdGPU = d.runs.Add(o.runs), d.gpuHours.Add(o.gpuHours), d.usdGPU.Add(o.usdGPU)
	d.usd, d.runHours, d.wall = d.usd.Add(o.usd), d.runHours.Add(o.runHours), d.wall.Add(o.wall)
}

// makesData reports whether a phase of kind makes the trained policy's
// data: baselines measure references and critic trainings train a critic.
func makesData(kind string) bool {
	return kind == plan.PhaseSeedRecords || kind == plan.PhaseRL || kind == RoundKind || kind == plan.PhaseEvolution
}

// share is the data share of a phase (or a calibration round) of calls
// once its real runs and calls are priced into pe, before its updates.
func (ve *variantEstimate) share(calls plan.Calls, pe *Phase) dataShare {
	d := dataShare{runs: pe.RealRuns, usd: pe.USD, wall: pe.WallHours}
	for name, n := range calls.RealRuns {
		if e := ve.envs[name]; e != nil {
			gh := n.Mul(e.GPUHours)
			d.gpuHours, d.usdGPU = d.gpuHours.Add(gh), d.usdGPU.Add(gh.Scale(ve.v.Prices[e.GPU]))
			d.runHours = d.runHours.Add(n.Mul(e.Hours))
		}
	}
	return d
}

// noteData adds the share of a phase of kind (or a round) to the policy's data (every data phase before
// the evaluation) and keeps the seed records' share, the price of a
// record.
func (ve *variantEstimate) noteData(kind string, calls plan.Calls, pe *Phase) {
	if ve.evaluated || !makesData(kind) {
		return
	}
	d := ve.share(calls, pe)
	ve.policyData.add(d)
	if kind == plan.PhaseSeedRecords {
		ve.seedData.add(d)
	}
}

// dataCosts are the evaluation's data costs, the policy's first, when it
// has an in-context arm; nil otherwise.
func (ve *variantEstimate) dataCosts() []*DataCost {
	ev := ve.eval
	if ev == nil {
		return nil
	}
	var icl []plan.EvalArm
	for _, a := range ev.Arms {
		if a.Name == plan.ArmICL && a.Records > 0 {
			icl = append(icl, a)
		}
	}
	if len(icl) == 0 {
		return nil
	}
	p := ve.policyData
	out := []*DataCost{{Arm: plan.ArmPolicy, Records: p.runs, GPUHours: p.gpuHours, USD: p.usd, RunHours: p.runHours, WallHours: p.wall}}
	// A record costs what a seed record does; without seed records, what
	// the runs before the evaluation cost on average, their GPU alone.
	per, n := ve.seedData, ve.seedData.runs.Expected
	if n <= 0 {
		per, n = dataShare{runs: p.runs, gpuHours: p.gpuHours, usdGPU: p.usdGPU, usd: p.usdGPU, runHours: p.runHours}, p.runs.Expected
	}
	for _, a := range icl {
		k := float64(a.Records)
		dc := &DataCost{Arm: a.Name, Records: plan.Exact(k)}
		if n > 0 {
			f := k / n
			dc.GPUHours, dc.USD, dc.RunHours, dc.WallHours = per.gpuHours.Scale(f), per.usd.Scale(f), per.runHours.Scale(f), per.wall.Scale(f)
		}
		out = append(out, dc)
	}
	return out
}
