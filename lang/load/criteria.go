package load

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// MaxCriteriaFiles bounds the task criteria files of one criteria_dir.
const MaxCriteriaFiles = 256

// readCriteriaDirs reads each critic role's criteria_dir: TASK.md is the
// criteria of task TASK (other files are not read). A criteria file is
// part of the spec, as a prompt file is: saved plans hash it.
func (r *resolver) readCriteriaDirs(s *spec.Spec) diag.Diagnostics {
	if s == nil {
		return nil
	}
	var ds diag.Diagnostics
	for _, role := range s.Roles {
		p := role.Prompt
		if p == nil || !p.CriteriaDir.Set {
			continue
		}
		dir := p.CriteriaDir.V
		if !filepath.IsAbs(dir) && p.CriteriaDir.Range.Filename != "" {
			dir = filepath.Join(filepath.Dir(p.CriteriaDir.Range.Filename), dir)
		}
		fail := func(format string, args ...any) {
			ds = append(ds, diag.Errorf(codePromptFile, p.CriteriaDir.Range, format, args...).
				WithDetail("criteria_dir is a directory relative to the file that writes it, holding TASK.md per task (at most %d files of at most 256 KiB each).", MaxCriteriaFiles))
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			fail("role %q: cannot read criteria_dir %s: %v", role.Name, p.CriteriaDir.V, unwrapPathError(err))
			continue
		}
		out := map[string]string{}
		var names []string
		for _, e := range ents {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if len(names) > MaxCriteriaFiles {
			fail("role %q: criteria_dir %s holds %d criteria files, more than %d", role.Name, p.CriteriaDir.V, len(names), MaxCriteriaFiles)
			continue
		}
		for _, n := range names {
			path := filepath.Join(dir, n)
			b, err := budget.ReadFile(path, MaxPromptFileBytes)
			if err != nil {
				fail("role %q: cannot read criteria file %s: %v", role.Name, filepath.Join(p.CriteriaDir.V, n), unwrapPathError(err))
				continue
			}
			r.src[path] = b
			out[strings.TrimSuffix(n, ".md")] = string(b)
		}
		p.TaskCriteria, p.CriteriaDirPath = out, dir
	}
	return ds
}
