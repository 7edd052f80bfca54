package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/host"
)

// recompileSaved compiles the saved plan's spec again, with the settings
// it records, and refuses a plan that differs from what the spec compiles
// to, naming the first difference. The file hashes prove the spec is the
// one pinned, and the plan hash that its plan was not edited without
// recomputing the hash; only compiling again proves the plan is the spec's.
func recompileSaved(s *plan.Saved, specPath, planPath string) error {
	f := &specFlags{}
	for _, o := range s.Overrides {
		switch {
		case strings.HasPrefix(o, "--set="):
			// As typed: the plan's own overrides hold the typed values.
			f.sets = append(f.sets, strings.TrimPrefix(o, "--set="))
		case strings.HasPrefix(o, "-var="):
			f.vars = append(f.vars, strings.TrimPrefix(o, "-var="))
		case strings.HasPrefix(o, "-var-file="):
			f.varFiles = append(f.varFiles, savedVarFile(strings.TrimPrefix(o, "-var-file="), planPath))
		default:
			return fmt.Errorf("the saved plan records setting %q, which is not -var, -var-file or --set", o)
		}
	}
	if len(f.sets) == 0 {
		// A plan saved before --set was recorded with the settings.
		f.sets = savedSettings(s.Plan.Overrides)
	}
	p, diags, _ := compileSpec(specPath, f)
	if p == nil {
		first := "it has errors"
		if es := diags.Errors(); len(es) > 0 {
			first = es[0].Error()
		}
		return fmt.Errorf("the spec %s no longer compiles with the saved settings: %s", s.Spec, first)
	}
	if p.Hash == s.Plan.Hash {
		return nil
	}
	path, was, now := firstPlanDifference(s.Plan, p)
	return fmt.Errorf("the plan in it is not what %s compiles to (plan hash %.19s…, the spec gives %.19s…): it differs first at %s (saved %s, the spec gives %s)",
		s.Spec, s.Plan.Hash, p.Hash, path, was, now)
}

// savedSettings turns the plan's recorded --set values back into
// PATH=VALUE arguments, in path order.
func savedSettings(ov map[string]any) []string {
	keys := make([]string, 0, len(ov))
	for k := range ov {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		var v string
		switch x := ov[k].(type) {
		case string:
			v = strconv.Quote(x)
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		out = append(out, k+"="+v)
	}
	return out
}

// savedVarFile resolves a recorded -var-file: as given when it is there
// (it was given relative to the directory plan -out ran in), else beside
// the saved plan.
func savedVarFile(path, planPath string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return filepath.Join(filepath.Dir(planPath), path)
}

// firstPlanDifference compares two plans as JSON, in the plan's own field
// order, and returns the first path where they differ with both values,
// shortened for a message.
func firstPlanDifference(a, b *plan.Plan) (path, was, now string) {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	path, x, y, ok := jsonDiff("plan", va, vb)
	if !ok {
		return "its hash", a.Hash, b.Hash
	}
	return path, short(x), short(y)
}

// jsonDiff walks two decoded JSON values; ok is false when they are equal.
// Object keys are visited in sorted order, so the answer is stable.
func jsonDiff(at string, a, b any) (path string, x, y any, ok bool) {
	switch av := a.(type) {
	case map[string]any:
		bv, isMap := b.(map[string]any)
		if !isMap {
			return at, a, b, true
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			_, ra := av[k].(map[string]any)
			_, rb := bv[k].(map[string]any)
			// Neither the hash nor source ranges are the plan's meaning
			// (plan.ComputeHash leaves them out).
			if k != "hash" && !(k == "source" && (ra || rb)) {
				sorted = append(sorted, k)
			}
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if p, x, y, ok := jsonDiff(at+"."+k, av[k], bv[k]); ok {
				return p, x, y, true
			}
		}
		return "", nil, nil, false
	case []any:
		bv, isList := b.([]any)
		if !isList {
			return at, a, b, true
		}
		for i := range min(len(av), len(bv)) {
			if p, x, y, ok := jsonDiff(fmt.Sprintf("%s[%d]", at, i), av[i], bv[i]); ok {
				return p, x, y, true
			}
		}
		if len(av) != len(bv) {
			return at + ".length", len(av), len(bv), true
		}
		return "", nil, nil, false
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return at, a, b, true
	}
	return "", nil, nil, false
}

// short renders a JSON value for a one-line message.
func short(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return termSafe(s)
}

// lockedPins refuses pins whose executable is not the one the spec's lock
// records for this platform: a plan saved with it would pin an executable
// the run then refuses to start.
func lockedPins(lock *host.Lock, pins []plan.PluginPin) error {
	for _, p := range pins {
		lp, ok := lock.Plugin(p.Name)
		if !ok {
			return fmt.Errorf("plugin %q is not in %s: run `assay init SPEC` to add it", p.Name, lock.Path())
		}
		if _, builtin := lp.Builtin(); builtin {
			continue // the lock pins the release serving it, which Verify checked
		}
		if locked := lp.Checksums[host.Platform]; locked != p.SHA256 {
			bin, _ := lock.BinaryPath(lp)
			return &host.ChecksumError{Plugin: p.Name, Path: bin, Locked: locked, Actual: p.SHA256, Lock: lock.Path()}
		}
	}
	return nil
}
