package pluginconfig

import (
	"strings"
	"testing"
)

// A value stands in a word of its own, or after or before plain text in
// one (--lr={{lr}}, {{workdir}}/m.json): never inside text that holds
// spaces, quotes or syntax, which would make it part of another
// language's code or of several words, whatever program reads it.
func TestCommandTemplateWordsOnly(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{`timeout 600 bash -c "python train.py --lr {{lr}}"`, `its word "python train.py --lr {{lr}}" holds " " beside the value`},
		{`sh -c 'x {{lr}}'`, `holds " "`},
		{`python3 -c "print({{lr}})"`, `holds "("`},
		{`perl -e "print {{lr}}"`, `holds " "`},
		{`awk "BEGIN{print {{lr}}}"`, `holds "{"`},
		{`jq ".a = {{lr}}" f.json`, `holds " "`},
		{`sed "s/a/{{lr}}/;q" f`, `holds ";"`},
		{`echo "lr={{lr}} ok"`, `holds " "`},
		{`echo 'a b {{lr}}'`, `holds " "`},
		{`echo "${x}{{lr}}"`, "holds an expansion"},
		{`echo $HOME/{{lr}}`, "holds an expansion"},
		{`echo ~{{lr}}`, `holds "~"`},
		{`echo {{lr}}*`, `holds "*"`},
		{`echo {{lr}}{a,b}`, `holds "{"`},
		{`echo a\ {{lr}}`, `holds "\\"`},
		{`echo $'lr={{lr}}\n'`, "inside $'...'"},
		{`echo {{raw "lr"}}`, `{{raw "lr"}} is not a placeholder: a value is always one quoted word; write {{lr}}`},
	} {
		_, err := CompileCommand(c.command)
		if err == nil {
			t.Errorf("%q: accepted, want an error containing %q", c.command, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %q", c.command, err, c.want)
		}
	}
	// The error places the placeholder in the template.
	_, err := CompileCommand("cd src &&\n  timeout 600 bash -c \"python train.py --lr {{lr}}\"")
	if te, ok := err.(*TemplateError); !ok || te.Line != 2 || te.Col != 45 {
		t.Errorf("got %v, want line 2, column 45", err)
	}
}

// Every word a value may be is one quoted reference in the command,
// whichever program it goes to: the compiler keeps no table of programs,
// since a typed value is data to all of them. Among these are the forms
// that run what they are given (eval, exec, system, git's configuration):
// they get the value as one word, and the trainer's tests run them.
func TestCommandTemplateQuotesEveryWord(t *testing.T) {
	for _, c := range []struct{ command, body string }{
		{`env X={{lr}} bash -c 'eval "$X"'`, `env X="${ASSAY_V_lr}" bash -c 'eval "$X"'`},
		{`X={{lr}} bash -c 'eval "$X"'`, `X="${ASSAY_V_lr}" bash -c 'eval "$X"'`},
		{`python3 -c 'import sys; exec(sys.argv[1])' {{lr}}`, `python3 -c 'import sys; exec(sys.argv[1])' "${ASSAY_V_lr}"`},
		{`env X={{lr}} python3 -c 'import os; os.system(os.environ["X"])'`, `env X="${ASSAY_V_lr}" python3 -c 'import os; os.system(os.environ["X"])'`},
		{`env X={{lr}} awk 'BEGIN{system(ENVIRON["X"])}'`, `env X="${ASSAY_V_lr}" awk 'BEGIN{system(ENVIRON["X"])}'`},
		{`git -c {{v}} status`, `git -c "${ASSAY_V_v}" status`},
		{`bash -c {{lr}}`, `bash -c "${ASSAY_V_lr}"`},
		{`find sh -c "{{A}}"`, `find sh -c "${ASSAY_V_A}"`},
		{`timeout 600 python3 train.py --lr={{lr}} --out {{workdir}}/m.json`, `timeout 600 python3 train.py --lr="${ASSAY_V_lr}" --out "${ASSAY_V_workdir}"/m.json`},
		{`torchrun --nproc_per_node={{gpus}} train.py`, `torchrun --nproc_per_node="${ASSAY_V_gpus}" train.py`},
		{`train "lr={{lr}}" 'ckpt_{{seed}}.pt'`, `train "lr=${ASSAY_V_lr}" 'ckpt_'"${ASSAY_V_seed}"'.pt'`},
		{`v={{lr}}; bash -c "$v"`, `v="${ASSAY_V_lr}"; bash -c "$v"`},
		{`$PY train.py --lr {{lr}}`, `$PY train.py --lr "${ASSAY_V_lr}"`},
		{`env A=1 {{cmd}}`, `env A=1 "${ASSAY_V_cmd}"`},
		{`command -v {{lr}}`, `command -v "${ASSAY_V_lr}"`},
		{`. {{config}} && train`, `. "${ASSAY_V_config}" && train`},
	} {
		ct, err := CompileCommand(c.command)
		if err != nil {
			t.Errorf("%q: %v", c.command, err)
			continue
		}
		if ct.Body != c.body {
			t.Errorf("%q:\n got %s\nwant %s", c.command, ct.Body, c.body)
		}
	}
}

// A variable assigned a value is checked wherever it is expanded, by the
// same grammar: what bash itself would run, a value may not reach through
// a variable either.
func TestCommandTemplateFlows(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{`v={{lr}}; w="x $v"; eval "$w"`, "$w (it holds a placeholder's value): eval reads its operands as shell code"},
		{`v={{lr}}; "$v" --help`, "cannot choose the command"},
		{`v={{lr}}; exec "$v"`, "cannot choose the command"},
		{`v={{lr}}; . "$v"`, ". runs the file this word names as bash"},
		{`export V={{lr}}; echo $(( V + 1 ))`, "arithmetic"},
		{`read -r x <<< {{lr}}; eval "$x"`, "eval reads"},
		{`echo {{lr}} | { read x; eval "$x"; }`, "eval reads"},
		{`f() { eval "$1"; }; f {{lr}}`, "eval reads"},
		{`printf -v x %s {{lr}}; eval "$x"`, "eval reads"},
		{`for x in {{lr}}; do eval "$x"; done`, "eval reads"},
		{`v={{lr}}; echo "${!v}"`, "${!...} reads the variable"},
		{`v={{lr}}; echo "${a[$v]}"`, "arithmetic"},
		{`v={{lr}}; a[v]=1`, "arithmetic"},
		{`echo $ASSAY_V_lr`, "names a variable Assay keeps values in"},
	} {
		_, err := CompileCommand(c.command)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.command, err, c.want)
		}
	}
}
