package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
)

// maxSeeds bounds --seeds: a group is read back whole by compare.
const maxSeeds = 100

// parseSeeds reads --seeds: seeds and ranges of seeds separated by commas,
// "1-5", "1,3,7", "1-3,10", in the order given, each at most once.
func parseSeeds(s string) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	add := func(n int64) error {
		if seen[n] {
			return fmt.Errorf("--seeds %q lists seed %d twice", s, n)
		}
		if len(out) == maxSeeds {
			return fmt.Errorf("--seeds %q lists more than %d seeds", s, maxSeeds)
		}
		seen[n] = true
		out = append(out, n)
		return nil
	}
	num := func(t string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--seeds %q: %q is not a seed (a whole number, 0 or more); write e.g. --seeds 1-5 or --seeds 1,3,7", s, strings.TrimSpace(t))
		}
		return n, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := num(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = num(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("--seeds %q: the range %s runs backwards", s, strings.TrimSpace(part))
			}
			if b-a >= maxSeeds {
				return nil, fmt.Errorf("--seeds %q lists more than %d seeds", s, maxSeeds)
			}
		}
		// Counted, not n <= b: a range ending at the largest int64 must
		// not wrap around.
		for k := int64(0); k <= b-a; k++ {
			if err := add(a + k); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// seedsFor compiles the spec once per seed of --seeds; nil without it.
func seedsFor(c *cobra.Command, path string, f *specFlags, flag string) ([]seedPlan, error) {
	if flag == "" {
		return nil, nil
	}
	list, err := parseSeeds(flag)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	return compileSeeds(c, path, f, list)
}

// seedPlan is the plan of one seed of a group: the spec compiled with
// --set seed=N after the command's own settings, so the compiler sets
// the seed of every variant and the plan records it (and hashes apart).
type seedPlan struct {
	seed  int64
	p     *plan.Plan
	flags *specFlags
	src   load.Sources
}

// compileSeeds compiles the spec once per seed. The first compilation's
// warnings are printed; the others differ only by the seed.
func compileSeeds(c *cobra.Command, path string, f *specFlags, seeds []int64) ([]seedPlan, error) {
	for _, s := range f.sets {
		if p, _, _ := strings.Cut(s, "="); strings.TrimSpace(p) == "seed" {
			return nil, &exitError{code: exitUsage, msg: "--seeds sets the seed of each run: drop --set seed=..."}
		}
	}
	var out []seedPlan
	for i, seed := range seeds {
		sf := *f
		sf.sets = append(append([]string(nil), f.sets...), "seed="+strconv.FormatInt(seed, 10))
		var p *plan.Plan
		var src load.Sources
		if i == 0 {
			var err error
			if p, src, err = mustCompile(c, path, &sf); err != nil {
				return nil, err
			}
		} else {
			q, diags, src := compileSpec(path, &sf)
			if diags.HasErrors() || q == nil {
				printDiags(c.ErrOrStderr(), diags, src)
				return nil, silentFailure()
			}
			p = q
		}
		out = append(out, seedPlan{seed: seed, p: p, flags: &sf, src: src})
	}
	return out, nil
}

// runSeeds runs each seed's plan as one group: run GROUP-vI-sN for the
// I-th variant and seed N, of the variant chosen (rf.variant, default the
// first) or, with allVariants, of every variant. Each run records the
// group, its variant's index and its seed in its journal meta.
func runSeeds(c *cobra.Command, ctx context.Context, plans []seedPlan, lock *host.Lock, meta map[string]string, prov *runtime.Provenance, rf *runFlags, group string, allVariants bool, parallel int) error {
	if group == "" {
		group = runtime.NewID()
	}
	p0 := plans[0].p
	var idx []int
	if allVariants {
		for i := range p0.Variants {
			idx = append(idx, i)
		}
	} else {
		i, err := p0.VariantIndex(rf.variant)
		if err != nil {
			return userErrorf("%v", err)
		}
		idx = []int{i}
		if len(p0.Variants) > 1 && rf.variant == "" {
			fmt.Fprintf(c.ErrOrStderr(), "assay: the spec sweeps %d variants; running %q (choose one with --variant, or all with --all-variants)\n", len(p0.Variants), p0.Variants[0].Name)
		}
	}
	seedList := make([]string, len(plans))
	for i, sp := range plans {
		seedList[i] = strconv.FormatInt(sp.seed, 10)
	}
	var ms []groupMember
	for _, i := range idx {
		for _, sp := range plans {
			s := strconv.FormatInt(sp.seed, 10)
			v := sp.p.Variants[i]
			ms = append(ms, groupMember{
				id: fmt.Sprintf("%s-v%d-s%s", group, i+1, s), p: sp.p, variant: v.Name,
				meta: map[string]string{"variant_index": strconv.Itoa(i + 1), "seed": s,
					"group_seeds": strings.Join(seedList, ","), "group_variants": strconv.Itoa(len(idx))},
				prov: seedProvenance(prov, sp),
			})
		}
	}
	return runGroup(c, ctx, ms, lock, meta, rf, group, parallel, fmt.Sprintf("%d seeds of %d variant(s)", len(plans), len(idx)))
}

// seedProvenance is the group's provenance for one seed's run: its plan's
// hash, and the settings it was compiled with, --set seed=N last.
func seedProvenance(base *runtime.Provenance, sp seedPlan) *runtime.Provenance {
	pv := *base
	pv.PlanHash, pv.Overrides = sp.p.Hash, sp.flags.overrides()
	return &pv
}

// compileFirst is the plan run checks (caps, plugins, provenance): the
// first seed's, or the spec compiled as given when there are no seeds.
func compileFirst(c *cobra.Command, path string, f *specFlags, seeds []seedPlan) (*plan.Plan, load.Sources, error) {
	if len(seeds) == 0 {
		return mustCompile(c, path, f)
	}
	return seeds[0].p, seeds[0].src, nil
}

// seedMembers lists the runs a group of seeds has started or will start,
// in launch order, from the meta its runs recorded (group_seeds,
// group_variants, variant_index): run GROUP-vI-sN. It returns nil when
// list holds no run of such a group g.
func seedMembers(list []*runtime.Status, g string) []*runtime.Status {
	byID := map[string]*runtime.Status{}
	var seeds []string
	nv, vi := 0, 0
	for _, s := range list {
		if s.Meta["group"] != g || s.Meta["group_seeds"] == "" {
			continue
		}
		byID[s.ID] = s
		seeds = strings.Split(s.Meta["group_seeds"], ",")
		nv, _ = strconv.Atoi(s.Meta["group_variants"])
		vi, _ = strconv.Atoi(s.Meta["variant_index"])
	}
	if len(byID) == 0 || nv < 1 || len(seeds) > maxSeeds {
		return nil
	}
	first := 1
	if nv == 1 {
		first = vi
	}
	var out []*runtime.Status
	for i := first; i < first+nv; i++ {
		for _, sd := range seeds {
			id := fmt.Sprintf("%s-v%d-s%s", g, i, sd)
			s := byID[id]
			if s == nil {
				s = &runtime.Status{ID: id, State: stateWaiting,
					Reason: "not started yet: the group runs a few runs at a time (run --parallel)"}
			}
			out = append(out, s)
		}
	}
	return out
}
