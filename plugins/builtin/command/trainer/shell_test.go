package trainer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/assay-lang/assay/plugins"
)

func TestCommandTemplateRefusals(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{"echo $(( {{n}} + 1 ))", "arithmetic"},
		{"(( {{n}} > 1 )) && echo", "arithmetic"},
		{"for ((i = 0; i < {{n}}; i++)); do :; done", "arithmetic"},
		{"let x={{n}}", "arithmetic"},
		{"a[{{i}}]=1", "arithmetic"},
		{"eval {{x}}", "eval reads its operands as shell code"},
		{`eval "$(echo {{x}})"`, "eval reads its operands as shell code"},
		{"trap {{x}} EXIT", "trap reads its operands"},
		{"{{x}} --flag", "cannot choose the command"},
		{"$(echo {{x}}) --flag", "cannot choose the command"},
		{"exec {{x}}", "cannot choose the command"},
		{"command -p {{x}}", "cannot choose the command"},
		{"cat <<EOF\n{{x}}\nEOF", "here-documents"},
		{"cat <<'EOF'\n{{x}}\nEOF", "here-documents"},
		{"echo hi >&{{x}}", "file descriptor"},
		{"cat <&{{x}}", "file descriptor"},
		{"bash -ec 'echo {{x}}'", `holds " " beside the value`},
		{"sh -c \"run {{x}}\"", `holds " " beside the value`},
		{"[[ {{x}} -eq 1 ]]", "arithmetic code"},
		{"[[ -v {{x}} ]]", "variable name"},
		{"test -v {{x}}", "variable name"},
		{"read {{x}}", "variable names"},
		{"unset {{x}}", "variable names"},
		{"printf -v {{x}} %s 1", "printf -v"},
		{"declare -i n={{x}}", "integer or a name reference"},
		{"declare -i n; n={{x}}", "integer"},
		{"local -n r={{x}}", "integer or a name reference"},
		{"declare -a a={{x}}", "declared with these options"},
		{"declare -i n=({{x}})", "declared with these options"},
		{"export {{x}}", "cannot name a variable"},
		{"{{x}}=1", "cannot name a variable"},
		{"PS4={{x}}", "reads PS4 as code"},
		{"OPTIND={{x}}", "reads OPTIND as code or arithmetic"},
		{"export RANDOM={{x}}", "reads RANDOM as code or arithmetic"},
		{"PATH={{x}} train", "finds commands by it"},
		{"source {{x}}", "runs the file this word names as bash"},
		{"builtin eval {{x}}", "eval reads its operands"},
		{`echo "a b {{x}}"`, `holds " " beside the value`},
		{"echo {{raw \"x\"}}", "a value is always one quoted word"},
		{"builtin declare -i n; n={{x}}", "integer or a name reference"},
		{"echo ${{x}}", "variable's name"},
		{"echo ${v:-{{x}}}", "inside ${...}"},
		{"echo $v{{x}}", "variable's name"},
		{"echo \\{{x}}", `holds "\\"`},
		{"echo `echo {{x}}`", "backquotes"},
		{"f{{x}}() { :; }", "cannot stand here"},
		{"for {{x}} in a; do :; done", "cannot stand here"},
		{"echo @({{x}}|b)", "glob"},
		{"{{if .x}}echo{{end}}", "control structures"},
		{"echo {{.x | printf \"%s\"}}", "is not a placeholder"},
		{"echo {{quote .x}}", "is not a placeholder"},
		{"echo 'unterminated {{x}}", "not valid bash"},
		{"echo {{x", "unclosed action"},
	} {
		_, err := compileCommand(c.command)
		if err == nil {
			t.Errorf("%q: accepted, want an error containing %q", c.command, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %q", c.command, err, c.want)
		}
	}
	// The error says where the placeholder is.
	_, err := compileCommand("python t.py \\\n  $(( {{n}} ))")
	if err == nil || !strings.HasPrefix(err.Error(), "line 2, column 7: {{n}}:") {
		t.Errorf("got %v, want it to start with line 2, column 7", err)
	}
}

func TestCommandTemplateSubstitution(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{"train --lr {{lr}}", `train --lr "${ASSAY_V_lr}"`},
		{"train --lr={{.lr}}x", `train --lr="${ASSAY_V_lr}"x`},
		{`echo "lr={{lr}}"`, `echo "lr=${ASSAY_V_lr}"`},
		{`echo 'lr={{lr}}'`, `echo 'lr='"${ASSAY_V_lr}"''`},
		{`echo {{index .edits "optim.lr"}}`, `echo "${` + varName("optim.lr") + `}"`},
		{"X={{lr}} train # lr {{lr}}", `X="${ASSAY_V_lr}" train # lr ${ASSAY_V_lr}`},
		{`bash -c 'train "$1"' _ {{lr}}`, `bash -c 'train "$1"' _ "${ASSAY_V_lr}"`},
		{"case {{lr}} in 1) echo;; esac", `case "${ASSAY_V_lr}" in 1) echo;; esac`},
		{"[ {{n}} -eq 1 ] && [[ {{lr}} == 1* ]]", `[ "${ASSAY_V_n}" -eq 1 ] && [[ "${ASSAY_V_lr}" == 1* ]]`},
		{"train > {{workdir}}/log.txt", `train > "${ASSAY_V_workdir}"/log.txt`},
		{"export LR={{lr}} && local_var={{lr}}", `export LR="${ASSAY_V_lr}" && local_var="${ASSAY_V_lr}"`},
		{"echo a {{- lr}}", `echo a"${ASSAY_V_lr}"`},
		{"declare -a arr=({{lr}} b); export -x L={{lr}}", `declare -a arr=("${ASSAY_V_lr}" b); export -x L="${ASSAY_V_lr}"`},
	} {
		ct, err := compileCommand(c.command)
		if err != nil {
			t.Errorf("%q: %v", c.command, err)
			continue
		}
		if ct.Body != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.command, ct.Body, c.want)
		}
	}
	if a, b := varName("a.b"), varName("a_b"); a == b || !identRE.MatchString(a) {
		t.Errorf("varName: %q, %q", a, b)
	}
}

// FuzzCommandTemplate renders any template that compiles with any value and
// checks that the value only ever reaches the script as the single-quoted
// content of an assignment: the rest of the script is the same whatever
// the value, and every placeholder became a plain, double-quoted reference
// to its variable. What a program does with that word is no property of
// the template: the value's type keeps it data (base/valuetype), so a
// value may be an operand of any program, bash -c's included (the seed
// find sh -c "{{A}}").
func FuzzCommandTemplate(f *testing.F) {
	for _, tmpl := range []string{
		"train --lr {{lr}}", `echo "lr={{lr}}"`, `echo 'lr={{lr}}'`, `echo $'a{{lr}}b'`, ". {{config}}",
		`printf '%s' "$(echo {{lr}})"`, "X={{lr}} y # {{lr}}", `echo {{raw "lr"}}`, "echo \\{{lr}}",
		"cat <<EOF\n{{lr}}\nEOF", "echo ${x:-{{lr}}}", `echo "${x}{{lr}}"`, "case {{lr}} in *) ;; esac",
		"echo a{{lr}}'{{lr}}'\"{{lr}}\"$'{{lr}}'", "f() { echo {{lr}}; }; f", "train --out {{workdir}}/m.json --lr={{lr}}",
		`timeout 600 bash -c "train {{lr}}"`, `timeout 600 bash -c 'train "$1"' _ {{lr}}`, `nice -n 5 python3 -c "{{lr}}"`,
		`env X={{lr}} bash -c 'eval "$X"'`, `find sh -c "{{A}}"`, `git -c {{v}} status`, `v={{lr}}; bash -c "$v"`,
	} {
		for _, v := range []string{"$(touch P)", "'; touch P; '", "\"; touch P; \"", "a\nb", "`x`", `\`, "0.1"} {
			f.Add(tmpl, v)
		}
	}
	f.Fuzz(func(t *testing.T, tmpl, value string) {
		// The parser that checks the result reads only UTF-8 (bash takes
		// any bytes); NUL never reaches a script (see TestNulValueIsInfeasible).
		if strings.Contains(tmpl, varPrefix) || strings.ContainsRune(value, 0) || !utf8.ValidString(value) {
			return
		}
		ct, err := compileCommand(tmpl)
		if err != nil {
			return
		}
		render := func(v string) (string, int) {
			var b strings.Builder
			for _, r := range ct.Refs {
				b.WriteString("export " + r.Var + "=" + shellQuote(v) + "\n")
			}
			n := b.Len()
			b.WriteString(ct.Body)
			return b.String(), n
		}
		script, n := render(value)
		other, m := render("x")
		if script[n:] != other[m:] {
			t.Fatalf("the command text depends on the value")
		}
		file, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatalf("rendered script does not parse: %v\n%s", err, script)
		}
		checkDefinitions(t, ct, file, script, value)
		checkReferences(t, ct, file, script)
	})
}

// checkDefinitions checks a rendered script's definitions: one export
// each, whose word is the value.
func checkDefinitions(t *testing.T, ct *commandTemplate, file *syntax.File, script, value string) {
	t.Helper()
	for i, r := range ct.Refs {
		d, ok := file.Stmts[i].Cmd.(*syntax.DeclClause)
		if !ok || len(d.Args) != 1 || d.Args[0].Name.Value != r.Var {
			t.Fatalf("statement %d is not the definition of %s:\n%s", i, r.Var, script)
		}
		var got strings.Builder
		for _, p := range d.Args[0].Value.Parts {
			switch p := p.(type) {
			case *syntax.SglQuoted:
				if p.Dollar {
					t.Fatalf("$'' in a definition")
				}
				got.WriteString(p.Value)
			case *syntax.Lit:
				if p.Value != `\'` {
					t.Fatalf("unquoted %q in a definition", p.Value)
				}
				got.WriteByte('\'')
			default:
				t.Fatalf("%T in a definition", p)
			}
		}
		// The checking parser reads CR LF as LF, as it reads scripts;
		// bash keeps the CR inside single quotes.
		if want := strings.ReplaceAll(value, "\r\n", "\n"); got.String() != want {
			t.Fatalf("definition holds %q, want %q", got.String(), want)
		}
	}
}

// checkReferences checks the command: every reference is plain and
// double-quoted.
func checkReferences(t *testing.T, ct *commandTemplate, file *syntax.File, script string) {
	t.Helper()
	refs := 0
	var stack []syntax.Node
	syntax.Walk(file, func(nd syntax.Node) bool {
		if nd == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if pe, ok := nd.(*syntax.ParamExp); ok && pe.Param != nil && strings.HasPrefix(pe.Param.Value, varPrefix) {
			refs++
			if pe.Short || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil || pe.Excl || pe.Length {
				t.Fatalf("reference %s is not plain:\n%s", pe.Param.Value, script)
			}
			if _, dq := stack[len(stack)-1].(*syntax.DblQuoted); !dq {
				t.Fatalf("reference %s is not quoted:\n%s", pe.Param.Value, script)
			}
		}
		stack = append(stack, nd)
		return true
	})
	if refs == 0 && len(ct.Refs) > 0 && !strings.Contains(ct.Body, "#") {
		t.Fatalf("no reference in the command:\n%s", script)
	}
}

// A template the trainer refuses is the config's fault: Describe and Start
// say so (plugins.ErrInvalidConfig), so the runtime does not retry it.
func TestTemplateErrorsAreConfigErrors(t *testing.T) {
	cfg := map[string]any{"command": "train --steps $(( {{steps}} * 2 ))", "metric_regex": "x(1)"}
	tr := newTrainer()
	_, err := tr.Describe(context.Background(), &plugins.DescribeRequest{Config: cfg})
	if !errors.Is(err, plugins.ErrInvalidConfig) || !strings.Contains(err.Error(), "config.command: line 1, column 19: {{steps}}: bash evaluates arithmetic") {
		t.Errorf("Describe: %v", err)
	}
	_, err = tr.Start(context.Background(), request(t, "bad", cfg, map[string]string{"steps": "1"}))
	if !errors.Is(err, plugins.ErrInvalidConfig) {
		t.Errorf("Start: %v", err)
	}
	// So is a placeholder that names nothing this run defines.
	_, err = tr.Start(context.Background(), request(t, "ph", map[string]any{"command": "train {{lr}}", "metric_regex": "x(1)"}, nil))
	if !errors.Is(err, plugins.ErrInvalidConfig) || !strings.Contains(err.Error(), "unknown placeholder {{lr}}") {
		t.Errorf("Start: %v", err)
	}
}
