package pluginconfig

import (
	"strings"
	"testing"
)

// A value reaches an interpreter through wrappers, pipes, redirections,
// process substitution and variables as surely as when it is an operand of
// bash -c: each is refused, saying why, at the placeholder.
func TestCommandTemplateInterpreters(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{`timeout 600 bash -c "python train.py --lr {{lr}}"`, "code for another shell"},
		{`timeout -k 10 600 bash -c "x {{lr}}"`, "code for another shell"},
		{`timeout --signal KILL 600 sh -ec 'x {{lr}}'`, "code for another shell"},
		{`nice -n 5 bash -c "x {{lr}}"`, "code for another shell"},
		{`stdbuf -oL bash -c "x {{lr}}"`, "code for another shell"},
		{`setsid -f bash -c "x {{lr}}"`, "code for another shell"},
		{`nohup nice env A=1 timeout 9 bash -c "x {{lr}}"`, "code for another shell"},
		{`ionice -c 3 taskset -c 0-3 chrt 0 bash -c "{{lr}}"`, "code for another shell"},
		{`/usr/bin/time -f %e -o t.txt bash -c "{{lr}}"`, "code for another shell"},
		{`echo a | xargs sh -c {{lr}}`, "code for another shell"},
		{`echo {{lr}} | xargs sh -c`, "reads its program from standard input"},
		{`echo {{lr}} | xargs -I{} sh -c 'echo {}'`, "xargs sh"},
		{`find . -name '*.py' -exec sh -c "x {{lr}}" \;`, "code for another shell"},
		{`find . -exec {{lr}} \;`, "cannot choose the command"},
		{`find {{dir}} -exec sh -c 'cat {}' \;`, "find puts the names it finds, which this value shapes, into code of sh"},
		{`find {{dir}} -exec timeout 5 python3 -c 'print("{}")' \;`, "into code of python3"},
		{`echo {{lr}} | xargs --replace sh -c 'echo {}'`, "xargs sh"},
		{`echo {{lr}} | xargs -I % python3 -c 'print(%)'`, "xargs python3"},
		{`srun -n 1 -p gpu bash -c "x {{lr}}"`, "code for another shell"},
		{`srun -n 1 {{lr}}`, "cannot choose the command"},
		{`torchrun --nproc_per_node 8 {{lr}}`, "runs the file or module"},
		{`uv run --with numpy python3 -c "print({{lr}})"`, "(-c) as code"},
		{`uv run {{lr}}`, "cannot choose the command"},
		{`uv {{lr}} python3 t.py`, "cannot choose the subcommand of uv"},
		{`uv "$SUB" python3 t.py {{lr}}`, "cannot tell what uv runs"},
		{`conda run -n env bash -c "{{lr}}"`, "code for another shell"},
		{`poetry run python3 {{lr}}`, "runs the file or module"},
		{`echo {{lr}} | bash`, "through a pipe into bash"},
		{`echo {{lr}} | tr a b | python3 -`, "through a pipe into python3"},
		{`printf '%s' {{lr}} | timeout 9 sh -s`, "through a pipe into sh"},
		{`. <(echo {{lr}})`, "runs the file or module"},
		{`source <(echo {{lr}})`, "runs the file or module"},
		{`bash <(echo {{lr}})`, "runs the file or module"},
		{`bash <<< {{lr}}`, "feeds the standard input of bash"},
		{`python3 < <(echo {{lr}})`, "feeds the standard input of python3"},
		{`echo {{lr}} > >(bash)`, "through >(...) into bash"},
		{`python3 -c "print({{lr}})"`, "python3 reads this word (-c) as code"},
		{`python3 -u -c "print({{lr}})"`, "(-c) as code"},
		{`python -m {{lr}}`, "runs the file or module"},
		{`python3 {{lr}}`, "runs the file or module"},
		{`perl -e "print {{lr}}"`, "perl reads this word (-e) as code"},
		{`perl -ne "print {{lr}}" f`, "(-e) as code"},
		{`ruby -e "{{lr}}"`, "(-e) as code"},
		{`node --eval="{{lr}}"`, "(--eval) as code"},
		{`awk "BEGIN { print {{lr}} }"`, "awk reads this word (program) as code"},
		{`awk -F, '{print}' | awk "{{lr}}"`, "(program) as code"},
		{`sed "s/a/{{lr}}/" f`, "sed reads this word (program) as code"},
		{`sed -e "s/a/{{lr}}/" f`, "(-e) as code"},
		{`jq ".a = {{lr}}" f.json`, "(program) as code"},
		{`env -S "python3 {{lr}}"`, "env -S takes shell code"},
		{`flock /tmp/l -c "x {{lr}}"`, "flock -c takes shell code"},
		{`sudo -s train {{lr}}`, "through a shell"},
		{`ssh host train --lr {{lr}}`, "remote shell"},
		{`watch train --lr {{lr}}`, "sh -c reads as code"},
		{`make train LR={{lr}}`, "make expands"},
		{`srun -n 1 python3 -c "print({{lr}})"`, "python3 reads this word (-c) as code"},
		{`mpirun -np 4 python3 -c "print({{lr}})"`, "python3 -c takes code"},
		{`v={{lr}}; bash -c "$v"`, "$v (it holds a placeholder's value)"},
		{`v={{lr}}; w="x $v"; eval "$w"`, "eval reads its operands"},
		{`export V={{lr}}; echo $(( V + 1 ))`, "arithmetic"},
		{`for x in {{lr}}; do python3 -c "$x"; done`, "(-c) as code"},
		{`read -r x <<< {{lr}}; bash -c "$x"`, "code for another shell"},
		{`read -r x <<< {{lr}}; bash -c $x`, "cannot tell how bash reads"},
		{`python3 -c{{lr}}`, "(-c) as code"},
		{`echo {{lr}} | { read x; sh -c "$x"; }`, "code for another shell"},
		{`f() { bash -c "$1"; }; f {{lr}}`, "code for another shell"},
		{`printf -v x %s {{lr}}; eval "$x"`, "eval reads its operands"},
		{`echo $ASSAY_V_lr`, "names a variable Assay keeps values in"},
		{`v={{lr}}; echo "${!v}"`, "${!...} reads the variable"},
		{`bash -c 'eval "$1"' _ {{lr}}`, "the script of bash -c receives it as $1, and in that script, at line 1, column 7: $1 (it holds a placeholder's value): eval reads its operands"},
		{`timeout 9 sh -c 'x=$0; python3 -c "$x"' {{lr}}`, "receives it as $0"},
		{`bash -c 'f() { bash -c "$1"; }; f "$@"' _ {{lr}}`, "receives it as $1"},
		{`bash -c 'echo $(( $1 + 1 ))' _ {{lr}}`, "arithmetic"},
		{`bash -c "$SCRIPT" _ {{lr}}`, "cannot tell how bash reads this word"},
		{`v={{lr}}; echo "${a[$v]}"`, "arithmetic"},
		{`v={{lr}}; echo "${a[v]}"`, "arithmetic"},
		{`v={{lr}}; echo "${x:$v:1}"`, "arithmetic"},
		{`v={{lr}}; echo "${x:v}"`, "arithmetic"},
		{`v={{lr}}; a[v]=1`, "arithmetic"},
		{`v={{lr}}; a=([$v]=1)`, "arithmetic"},
		{`$PY train.py --lr {{lr}}`, "known only when the command runs"},
		{`bash $OPTS {{lr}}`, "cannot tell how bash reads"},
		{`timeout 9 {{raw "cmd"}}`, "cannot tell which command timeout runs"},
		{`nice {{lr}} train`, "cannot choose the command"},
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

// Wrappers and interpreters still take values as data where they read data.
func TestCommandTemplateDataArguments(t *testing.T) {
	for _, c := range []string{
		`timeout 600 python3 train.py --lr {{lr}}`,
		`timeout {{t}} python3 train.py`,
		`nice -n 5 stdbuf -oL setsid python3 train.py --lr={{lr}}`,
		`env LR={{lr}} python3 train.py`,
		`bash -c 'python3 train.py --lr "$1"' _ {{lr}}`,
		`timeout 600 bash -c 'train "$1"' _ {{lr}}`,
		`bash -c 'python3 train.py --lr "$1" --seed "$2"' _ {{lr}} {{seed}}`,
		`bash -c 'for a in "$@"; do echo "$a"; done' _ {{lr}}`,
		`python3 -c 'import sys; print(sys.argv[1])' {{lr}}`,
		`python3 -m train --lr {{lr}}`,
		`perl -e 'print $ARGV[0]' {{lr}}`,
		`awk -v lr={{lr}} '{print lr}' data.txt`,
		`sed -e 's/a/b/' {{workdir}}/f.txt`,
		`jq --arg lr {{lr}} '.lr = $lr' cfg.json`,
		`. {{config}} && python3 train.py`,
		`python3 {{workdir}}/train.py --lr {{lr}}`,
		`echo {{lr}} | python3 train.py`,
		`echo {{lr}} | xargs python3 train.py`,
		`find . -name '*.py' -exec python3 check.py {} {{lr}} \;`,
		`find {{dir}} -name '*.py' -exec python3 check.py {} \;`,
		`find {{dir}} -exec sh -c 'cat "$1"' _ {} \;`,
		`echo {{lr}} | xargs -I{} python3 train.py --lr {}`,
		`torchrun --nproc_per_node 8 train.py --lr {{lr}}`,
		`uv run --python 3.12 python3 train.py --lr {{lr}}`,
		`conda run -n env python3 train.py --lr {{lr}}`,
		`uv pip install torch && python3 train.py --lr {{lr}}`,
		`srun -n 1 python3 train.py --lr {{lr}}`,
		`v={{lr}}; python3 train.py --lr "$v"`,
		`v={{lr}}; echo "${v:-default}" "${#v}" "${v/a/b}"`,
		`X={{lr}} python3 -c 'import os; print(os.environ["X"])'`,
		`command -v {{lr}}`,
	} {
		if _, err := CompileCommand(c); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
}
