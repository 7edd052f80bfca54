package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// commandValues pairs each variable the command refers to with its value.
func commandValues(t *commandTemplate, vars, values map[string]string) ([][2]string, error) {
	var defs [][2]string
	for _, r := range t.Refs {
		v, ok := vars[r.Name]
		if !r.Plain {
			v, ok = values[r.Name], true
		}
		if !ok {
			return nil, unknownPlaceholder(r.Name, vars)
		}
		defs = append(defs, [2]string{r.Var, v})
	}
	return defs, nil
}

// commentSafe is s for a comment of run.sh: as it is when it is printable
// text on one line, else Go-quoted, so no newline ends the comment and no
// control character reaches a terminal that shows the script.
func commentSafe(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// runScript is run.sh: the run's environment, the values its command
// refers to, then the command, so `bash run.sh` re-runs it by hand. Every
// value is single-quoted in an assignment; the command only refers to it.
func runScript(rec *record, cfg *Config, cmd *commandTemplate, cwd, dir, overrides string, defs [][2]string, limit time.Duration) (string, error) {
	q := executor.Quote
	var b strings.Builder
	fmt.Fprintf(&b, "#!/usr/bin/env bash\n# Assay run %s: environment %s, task %s, seed %d.\n",
		commentSafe(rec.RunID), commentSafe(rec.Env), commentSafe(rec.Task), rec.Seed)
	if rec.Revision != "" {
		fmt.Fprintf(&b, "# Source: %s at %s", commentSafe(cfg.Repo), commentSafe(rec.Revision))
		if cfg.Apply == ApplyPatch && rec.Proposal.Patch != "" {
			b.WriteString(" with " + PatchFile + " applied")
		}
		b.WriteString(" (in " + SourceDir + "/).\n")
	}
	b.WriteString("# Re-run by hand: bash run.sh\n")
	b.WriteString("cd " + q(cwd) + " || exit 1\n")
	env := map[string]string{
		"ASSAY_RUN_ID": rec.RunID, "ASSAY_ENV": rec.Env, "ASSAY_TASK": rec.Task,
		"ASSAY_SEED": strconv.FormatInt(rec.Seed, 10), "ASSAY_WORKDIR": dir,
		"ASSAY_CONFIG": overrides, "ASSAY_GPUS": strconv.Itoa(rec.GPUs),
	}
	if overrides == "" || rec.Update != nil {
		// Source mode has no overrides file, so no program reads one
		// over the candidate's commit; a policy update has none either.
		delete(env, "ASSAY_CONFIG")
	}
	if u := rec.Update; u != nil {
		delete(env, "ASSAY_ENV")
		delete(env, "ASSAY_TASK")
		for k, v := range updateValues(u) {
			if k == "lora_rank" && v == "" {
				continue // the command's own default: no rank to see
			}
			env["ASSAY_"+strings.ToUpper(k)] = v
		}
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.ContainsRune(env[k], 0) {
			return "", fmt.Errorf("%s holds a NUL byte, which no environment variable can carry", k)
		}
		b.WriteString("export " + k + "=" + q(env[k]) + "\n")
	}
	if len(defs) > 0 {
		b.WriteString("# The values the command refers to; the command itself holds none of them.\n")
	}
	for _, d := range defs {
		if strings.ContainsRune(d[1], 0) {
			return "", fmt.Errorf("the value of %s holds a NUL byte, which no shell variable can carry", d[0])
		}
		b.WriteString("export " + d[0] + "=" + shellQuote(d[1]) + "\n")
	}
	command := cmd.Body
	if limit <= 0 {
		b.WriteString(command)
		if !strings.HasSuffix(command, "\n") {
			b.WriteString("\n")
		}
		return b.String(), nil
	}
	secs := strconv.FormatInt(int64(limit.Round(time.Second)/time.Second), 10)
	if secs == "0" {
		secs = "1"
	}
	b.WriteString("timeout --kill-after=10 " + secs + " bash -c " + q(command) + "\n")
	b.WriteString("rc=$?\n")
	b.WriteString("if [ \"$rc\" -eq 124 ]; then echo \"" + timeLimitMarker + secs + "s exceeded\" >&2; fi\n")
	b.WriteString("exit $rc\n")
	return b.String(), nil
}

// writeOverrides writes the proposal's values as JSON, YAML or KEY=VALUE
// lines. Values that read as numbers or booleans are written as such.
func writeOverrides(path, format string, values map[string]string) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	switch format {
	case "json":
		m := map[string]any{}
		for _, k := range keys {
			m[k] = typed(values[k])
		}
		j, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteString("\n")
	case "yaml":
		for _, k := range keys {
			v := typed(values[k])
			vs, isStr := v.(string)
			if isStr {
				vs = yamlString(vs)
			} else {
				j, _ := json.Marshal(v)
				vs = string(j)
			}
			b.WriteString(yamlString(k) + ": " + vs + "\n")
		}
	default:
		// Shell syntax: each value quoted, so sourcing the file only assigns.
		for _, k := range keys {
			if !identRE.MatchString(k) {
				return fmt.Errorf("overrides: %q is not a variable name", k)
			}
			b.WriteString(k + "=" + executor.Quote(values[k]) + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// yamlString is s as a YAML double-quoted scalar: every character YAML
// does not allow raw (controls, DEL, C1, line and paragraph separators, the
// byte order mark) is escaped.
func yamlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func typed(s string) any {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	return s
}

// checkout clones repo into dst at revision and returns the commit.
func checkout(ctx context.Context, repo, revision, dst string) (string, error) {
	_ = os.RemoveAll(dst)
	args := []string{"clone", "--quiet", "--no-checkout"}
	if st, err := os.Stat(repo); err == nil && st.IsDir() {
		// A local repository: share its objects instead of copying them.
		args = append(args, "--shared")
	}
	if out, err := git(ctx, "", append(args, repo, dst)...); err != nil {
		return "", fmt.Errorf("config.repo: cannot clone %s: %s", repo, out)
	}
	sha, err := git(ctx, dst, "rev-parse", "--verify", "--quiet", revision+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("config.revision: %q is not a commit of %s", revision, repo)
	}
	if out, err := git(ctx, dst, "checkout", "--quiet", "--detach", sha); err != nil {
		return "", fmt.Errorf("config.revision: cannot check out %s: %s", sha, out)
	}
	return sha, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
