package pluginconfig

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a program does with its words decides whether a value may be one
// of them. A program is resolved through the wrappers that run the command
// after their own options (timeout 600 bash -c ...), each read with its own
// option grammar; an interpreter's words are read with its grammar to find
// the one that is code (-c, -e, awk's program); anything not proven to be
// data is refused.

// wrapper is a program that runs the command named after its options.
type wrapper struct {
	arg      string   // short options that take a value (-n 10, -n10)
	argLong  []string // long options that take a value (--signal KILL, --signal=KILL)
	attached string   // short options whose value, if any, is attached only (xargs -i{})
	operands int      // operands before the command (timeout's duration)
	assigns  bool     // NAME=VALUE words before the command (env)
	code     string   // short options whose value is shell code
	codeLong []string
	none     string // short options with which no command runs (command -v)
	noneLong []string
	shell    string // short options that run the command through a shell (sudo -s)
	replace  string // short options that substitute standard input into the command's words (xargs -I)
}

// xargsReplace is the word xargs -i and --replace substitute when given none.
const xargsReplace = "{}"

var wrappers = map[string]*wrapper{
	"env":     {arg: "uC", argLong: []string{"--unset", "--chdir"}, assigns: true, code: "S", codeLong: []string{"--split-string"}},
	"nice":    {arg: "n", argLong: []string{"--adjustment"}},
	"nohup":   {},
	"setsid":  {},
	"timeout": {arg: "sk", argLong: []string{"--signal", "--kill-after"}, operands: 1},
	"stdbuf":  {arg: "ioe", argLong: []string{"--input", "--output", "--error"}},
	"ionice":  {arg: "cn", argLong: []string{"--class", "--classdata"}, none: "pPu", noneLong: []string{"--pid", "--pgid", "--uid"}},
	"taskset": {operands: 1, none: "p", noneLong: []string{"--pid"}},
	"chrt":    {arg: "TPD", argLong: []string{"--sched-runtime", "--sched-period", "--sched-deadline"}, operands: 1, none: "pm", noneLong: []string{"--pid", "--max"}},
	"time":    {arg: "fo", argLong: []string{"--format", "--output"}},
	"command": {none: "vV"},
	"builtin": {},
	"exec":    {arg: "a"},
	"xargs": {arg: "adEILnPs", argLong: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
		attached: "eil", replace: "Ii"},
	// Slurm's srun runs its command on the allocation.
	"srun": {arg: "ABCDGJLMNSTWbcdeimnopqrtwx", argLong: []string{"--account", "--chdir", "--constraint", "--cpus-per-task", "--dependency",
		"--error", "--gpus", "--gres", "--input", "--job-name", "--mem", "--nodelist", "--nodes", "--ntasks", "--output", "--partition", "--qos", "--time"}},
	"sudo":     {arg: "ugCDhpTRUrt", argLong: []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--command-timeout", "--chroot", "--other-user", "--role", "--type"}, none: "lvkKVe", shell: "si"},
	"doas":     {arg: "uC", shell: "s"},
	"flock":    {arg: "wE", argLong: []string{"--timeout", "--conflict-exit-code"}, code: "c", codeLong: []string{"--command"}, operands: 1},
	"chroot":   {argLong: []string{"--userspec", "--groups"}, operands: 1},
	"numactl":  {arg: "CNmpiP"},
	"unbuffer": {},
}

// Programs whose subcommand runs the command after its options, in an
// environment they set up (uv run python3 train.py).
var subcommands = map[string]map[string]*wrapper{
	"uv": {"run": {arg: "pw", argLong: []string{"--with", "--with-editable", "--with-requirements", "--python", "--project", "--directory",
		"--env-file", "--extra", "--group", "--index", "--package", "--default-index", "--index-url", "--extra-index-url"}}},
	"poetry":     {"run": {}},
	"pipenv":     {"run": {}},
	"pixi":       {"run": {arg: "e", argLong: []string{"--manifest-path", "--environment"}}},
	"conda":      {"run": condaRun},
	"mamba":      {"run": condaRun},
	"micromamba": {"run": condaRun},
}

var condaRun = &wrapper{arg: "np", argLong: []string{"--name", "--prefix", "--cwd"}}

// wrapperAt is the wrapper that starts at args[j] and the index of the
// word its options follow: j, or j+1 after a subcommand (uv run). A
// subcommand the template does not fix is refused by the caller as an
// unknown word (sub is then that word).
func (c *classifier) wrapperAt(base string, args []*syntax.Word, j int) (w *wrapper, at int, sub string) {
	if w, ok := wrappers[base]; ok {
		return w, j, ""
	}
	subs, ok := subcommands[base]
	if !ok || j+1 >= len(args) {
		return nil, 0, ""
	}
	t, ok := c.static(args[j+1])
	if !ok {
		return nil, 0, c.wordText(args[j+1])
	}
	if w, ok := subs[t]; ok {
		return w, j + 1, ""
	}
	return nil, 0, ""
}

// Programs that join their words into a line a shell reads, or expand
// code in them: no value may be one of their words.
var joiners = map[string]string{
	"ssh":      "ssh joins its command words into one line the remote shell reads as code",
	"watch":    "watch joins its command words into one line that sh -c reads as code",
	"parallel": "GNU parallel composes shell command lines from its words",
	"make":     "make expands $(...) in its variable values as make code ($(shell ...) runs a command)",
	"su":       "su runs its command through a shell",
	"runuser":  "runuser runs its command through a shell",
	"script":   "script runs its command through a shell",
	"sg":       "sg runs its command through a shell",
}

// grammar is how an interpreter reads its words.
type grammar struct {
	code, load, arg, attached   string   // short options: the value is code / names code to load / is data / is attached only
	codeLong, loadLong, argLong []string // the same for long options
	arg2Long                    []string // long options with two data values (jq --arg NAME VALUE)
	file                        string   // short options naming the program's file: no program operand then
	fileLong                    []string
	program                     bool     // the first operand is the program's text (awk, sed, jq)
	script                      bool     // the first operand names the program's file; without one it reads standard input
	ends                        string   // short options after whose value the words are the program's arguments (python -c, -m)
	endsLong                    []string // the same for long options
	shell                       bool     // a POSIX shell: -c makes the first operand code, -s reads standard input
}

var (
	nodeGrammar = &grammar{code: "ep", codeLong: []string{"--eval", "--print"}, load: "r", loadLong: []string{"--require", "--import", "--loader"},
		script: true, ends: "ep", endsLong: []string{"--eval", "--print"}}
	shellGrammar  = &grammar{shell: true, argLong: []string{"--rcfile", "--init-file"}}
	pythonGrammar = &grammar{code: "c", load: "m", arg: "WX", script: true, ends: "cm"}
	// interpreters by program name; pythonRE and the shells below add more.
	interpreters = map[string]*grammar{
		"perl":    {code: "eE", load: "MmI", attached: "lx0iCd", script: true},
		"ruby":    {code: "e", load: "rI", arg: "CE", script: true},
		"node":    nodeGrammar,
		"nodejs":  nodeGrammar,
		"php":     {code: "rBRE", load: "dc", file: "f", script: true},
		"Rscript": {code: "e", script: true},
		"R":       {code: "e", load: "f", script: true},
		"julia":   {code: "eE", load: "L", script: true},
		"lua":     {code: "e", load: "l", script: true},
		"luajit":  {code: "e", load: "l", script: true},
		"tclsh":   {script: true},
		// torchrun launches a Python script (or, with -m, a module) on each process.
		"torchrun": {load: "m", script: true, argLong: []string{"--nproc_per_node", "--nproc-per-node", "--nnodes", "--node_rank", "--node-rank",
			"--master_addr", "--master-addr", "--master_port", "--master-port", "--rdzv_backend", "--rdzv-backend", "--rdzv_endpoint",
			"--rdzv-endpoint", "--rdzv_id", "--rdzv-id", "--max_restarts", "--max-restarts", "--monitor_interval", "--log_dir", "--log-dir",
			"--redirects", "--tee", "--role", "--local_addr"}},
		"expect": {code: "c", script: true},
		"awk":    {arg: "vF", file: "f", program: true},
		"gawk":   {arg: "vF", code: "e", codeLong: []string{"--source"}, load: "il", loadLong: []string{"--include", "--load"}, file: "fE", fileLong: []string{"--file", "--exec"}, program: true},
		"mawk":   {arg: "vFW", file: "f", program: true},
		"nawk":   {arg: "vF", file: "f", program: true},
		"sed":    {code: "e", codeLong: []string{"--expression"}, file: "f", fileLong: []string{"--file"}, arg: "l", attached: "i", program: true},
		"jq":     {file: "f", fileLong: []string{"--from-file"}, arg: "L", argLong: []string{"--indent"}, arg2Long: []string{"--arg", "--argjson", "--slurpfile", "--rawfile"}, program: true},
		".":      {script: true},
		"source": {script: true},
	}
	shells   = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true, "yash": true, "posh": true}
	pythonRE = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)
	// Paths through which a script named as a file is standard input.
	stdinPaths = map[string]bool{"-": true, "/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true}
)

func interpreterOf(name string) *grammar {
	switch {
	case shells[name]:
		return shellGrammar
	case pythonRE.MatchString(name):
		return pythonGrammar
	}
	return interpreters[name]
}

// Roles of an interpreter's words.
type roleKind int

const (
	rolePlain   roleKind = iota // data: an argument of the program
	roleCode                    // the program's code
	roleLoad                    // names a file or module of code to run
	roleUnknown                 // what the word is cannot be told before the command runs
)

// reading is how an interpreter reads the words after its name.
type reading struct {
	roles    []roleKind
	opt      []string // the option each code or load word belongs to, for errors
	stdin    bool     // it reads its program from standard input
	dangling bool     // a code option or program operand without its word: another source (xargs) fills it
	unknown  string   // the word that made the rest unknown
}

// read reads args, the words after an interpreter's name, with grammar g.
func (c *classifier) read(g *grammar, args []*syntax.Word) *reading {
	rd := &optReader{c: c, g: g, args: args, r: &reading{roles: make([]roleKind, len(args)), opt: make([]string, len(args))}}
	r := rd.r
	for rd.i < len(args) {
		t, ok, partial, operand := rd.word()
		if operand {
			break
		}
		if !ok {
			r.unknown = c.wordText(args[rd.i])
			for i := rd.i; i < len(args); i++ {
				r.roles[i] = roleUnknown
			}
			return r
		}
		if !rd.option(t, partial) {
			break
		}
	}
	if rd.ended {
		return r // the rest are the program's arguments
	}
	c.readOperands(g, args, r, rd.i, rd.haveProgram, rd.shellC, rd.shellS)
	return r
}

// optReader reads an interpreter's options, args[:i], into r.
type optReader struct {
	c    *classifier
	g    *grammar
	args []*syntax.Word
	r    *reading
	i    int // the next word

	haveProgram, shellC, shellS bool
	ended                       bool // an option ends the interpreter's own arguments
}

// word is the text of args[i] as an option. partial: the word goes on
// past t with a value (-c{{x}}, --eval={{x}}); operand: the word is one
// word of data; !ok: what it is cannot be told before the command runs.
func (rd *optReader) word() (t string, ok, partial, operand bool) {
	w := rd.args[rd.i]
	t, ok = rd.c.static(w)
	if !ok && rd.c.holdsValue(w) && !rd.c.holdsRaw(w) {
		if l := lead(w); len(l) > 1 && l[0] == '-' {
			return l, true, true, false
		}
		return "", false, false, true
	}
	return t, ok, false, false
}

// set gives args[i] role k, of option opt. A missing word is filled by
// another source (xargs).
func (rd *optReader) set(i int, k roleKind, opt string) {
	if i >= len(rd.args) {
		rd.r.dangling = rd.r.dangling || k == roleCode
		return
	}
	rd.r.roles[i], rd.r.opt[i] = k, opt
}

// option reads the option t at args[i] and reports whether more options
// may follow.
func (rd *optReader) option(t string, partial bool) bool {
	g := rd.g
	switch {
	case t == "--" || t == "-" && !g.shell:
		if t == "--" {
			rd.i++
		}
		return false
	case g.shell && (t == "-o" || t == "+o" || t == "-O" || t == "+O"):
		rd.i += 2
		return true
	case strings.HasPrefix(t, "--") && len(t) > 2:
		return !rd.long(t, partial)
	case len(t) > 1 && (t[0] == '-' || g.shell && t[0] == '+'):
		return !rd.short(t, partial)
	}
	return false
}

// long reads the long option t and reports whether it ends the options.
func (rd *optReader) long(t string, partial bool) (ended bool) {
	g, i := rd.g, rd.i
	name, _, eq := strings.Cut(t, "=")
	kind, known := roleKind(-1), true
	switch {
	case has(g.codeLong, name):
		kind, rd.haveProgram = roleCode, true
	case has(g.loadLong, name):
		kind = roleLoad
	case has(g.fileLong, name):
		kind, rd.haveProgram = roleLoad, true
	case has(g.argLong, name):
		kind = rolePlain
	case has(g.arg2Long, name):
		rd.i += 3
		return false
	default:
		known = false
	}
	if known && (eq || partial) {
		rd.r.roles[i], rd.r.opt[i] = kind, name
	} else if known {
		rd.set(i+1, kind, name)
		rd.i++
	}
	rd.i++
	if has(g.endsLong, name) {
		rd.ended = true
		return true
	}
	return false
}

// short reads the cluster of short options t and reports whether it ends
// the options.
func (rd *optReader) short(t string, partial bool) (ended bool) {
	g := rd.g
	letters := t[1:]
	for k := 0; k < len(letters); k++ {
		ch := letters[k : k+1]
		kind := roleKind(-1)
		switch {
		case g.shell && ch == "c" && t[0] == '-':
			rd.shellC = true
		case g.shell && ch == "s" && t[0] == '-':
			rd.shellS = true
		case strings.Contains(g.code, ch):
			kind, rd.haveProgram = roleCode, true
		case strings.Contains(g.file, ch):
			kind, rd.haveProgram = roleLoad, true
		case strings.Contains(g.load, ch):
			kind = roleLoad
		case strings.Contains(g.arg, ch):
			kind = rolePlain
		case strings.Contains(g.attached, ch):
			k = len(letters) // the rest of the word is its value
		}
		if kind < 0 {
			continue
		}
		if k+1 < len(letters) || partial {
			rd.r.roles[rd.i], rd.r.opt[rd.i] = kind, "-"+ch // attached: the word itself
		} else {
			rd.set(rd.i+1, kind, "-"+ch)
			rd.i++
		}
		if strings.Contains(g.ends, ch) {
			rd.ended = true
			rd.i++
			return true
		}
		break
	}
	rd.i++
	return false
}

// readOperands gives the roles of an interpreter's operands, args[i:]:
// its code, the script it runs, or data.
func (c *classifier) readOperands(g *grammar, args []*syntax.Word, r *reading, i int, haveProgram, shellC, shellS bool) {
	set := func(i int, k roleKind, opt string) {
		if i >= len(args) {
			r.dangling = r.dangling || k == roleCode
			return
		}
		r.roles[i], r.opt[i] = k, opt
	}
	switch {
	case g.shell && shellC:
		set(i, roleCode, "-c")
	case g.shell && shellS, g.shell && i >= len(args):
		r.stdin = true
	case g.program && !haveProgram:
		set(i, roleCode, "program")
	case g.script && !haveProgram:
		if i >= len(args) {
			r.stdin = true
		} else if t, ok := c.static(args[i]); ok && stdinPaths[t] {
			r.stdin = true
		} else {
			set(i, roleLoad, "script")
		}
	case g.shell:
		if t, ok := c.static(args[i]); ok && stdinPaths[t] {
			r.stdin = true
		} else {
			set(i, roleLoad, "script")
		}
	}
}

func has(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// wrapped reads the words of wrapper w at args[j]: the index of the
// command it runs (-1 when it runs none), the role of each of its own
// words, and whether it runs the command through a shell or substitutes
// standard input into it.
type wrapping struct {
	cmd     int
	code    map[int]string // words that are shell code, by option
	assigns map[int]bool
	unknown string
	shell   string
	// replace is the word xargs -I replaces by each input item.
	replace string
}

func (c *classifier) wrapped(w *wrapper, args []*syntax.Word, j int) *wrapping {
	rd := &wrapReader{c: c, w: w, args: args, i: j + 1, operands: w.operands,
		out: &wrapping{cmd: -1, code: map[int]string{}, assigns: map[int]bool{}}}
	out := rd.out
	for rd.i < len(args) {
		i := rd.i
		t, ok := c.static(args[i])
		if !ok {
			if !c.holdsValue(args[i]) || c.holdsRaw(args[i]) {
				out.unknown = c.wordText(args[i])
				return out
			}
			// One word of data: an operand or the command, or env's
			// NAME=VALUE when the template writes NAME= before it.
			t = "value"
			if l := lead(args[i]); strings.Contains(l, "=") {
				t = l
			}
		}
		switch {
		case t == "--":
			rd.i++
			for ; rd.operands > 0 && rd.i < len(args); rd.operands-- {
				rd.i++
			}
			if rd.i < len(args) {
				out.cmd = rd.i
			}
			return out
		case strings.HasPrefix(t, "--") && len(t) > 2:
			if rd.long(t) {
				return out
			}
		case len(t) > 1 && t[0] == '-':
			if rd.short(t) {
				return out
			}
		case w.assigns && strings.Contains(t, "=") && identName.MatchString(t[:strings.Index(t, "=")]):
			out.assigns[i] = true
			rd.i++
		case rd.operands > 0:
			rd.operands--
			rd.i++
		default:
			out.cmd = i
			return out
		}
	}
	return out
}

// wrapReader reads a wrapper's own words, args[i:], into out.
type wrapReader struct {
	c        *classifier
	w        *wrapper
	args     []*syntax.Word
	out      *wrapping
	i        int // the next word
	operands int // the operands still to come before the command
}

// long reads the long option t and reports whether the wrapper runs no
// command.
func (rd *wrapReader) long(t string) (stop bool) {
	w, out := rd.w, rd.out
	name, _, eq := strings.Cut(t, "=")
	switch {
	case has(w.noneLong, name):
		return true
	case has(w.codeLong, name):
		if eq {
			out.code[rd.i] = name
		} else {
			out.code[rd.i+1] = name
			rd.i++
		}
	case has(w.argLong, name) && !eq:
		rd.i++
	case w.replace != "" && name == "--replace":
		out.replace = xargsReplace
		if _, r, ok := strings.Cut(t, "="); ok {
			out.replace = r
		}
	}
	rd.i++
	return false
}

// short reads the cluster of short options t and reports whether reading
// stops: the wrapper runs no command, or its -I word is not known.
func (rd *wrapReader) short(t string) (stop bool) {
	w, out := rd.w, rd.out
	letters := t[1:]
	for k := 0; k < len(letters); k++ {
		ch := letters[k : k+1]
		switch {
		case strings.Contains(w.none, ch):
			return true
		case strings.Contains(w.shell, ch):
			out.shell = "-" + ch
		case strings.Contains(w.replace, ch):
			if rd.replaceOpt(letters, k, ch) {
				return true
			}
		}
		if strings.Contains(w.attached, ch) {
			break
		}
		if strings.Contains(w.code, ch) || strings.Contains(w.arg, ch) {
			if k+1 == len(letters) {
				rd.i++
			}
			if strings.Contains(w.code, ch) {
				out.code[rd.i] = "-" + ch
			}
			break
		}
	}
	rd.i++
	return false
}

// replaceOpt reads xargs's replace option ch at letters[k] and reports
// whether its word is not known.
func (rd *wrapReader) replaceOpt(letters string, k int, ch string) (stop bool) {
	out := rd.out
	out.replace = xargsReplace
	switch {
	case k+1 < len(letters):
		out.replace = letters[k+1:]
	case ch == "I" && rd.i+1 < len(rd.args):
		r, ok := rd.c.static(rd.args[rd.i+1])
		if !ok {
			out.unknown = rd.c.wordText(rd.args[rd.i+1])
			return true
		}
		out.replace = r
	}
	return false
}

// trusted placeholders name paths the trainer makes (the file it writes
// the proposal's values to, the run's directory): they may name a file
// an interpreter runs, though never stand as code.
var trusted = map[string]bool{"config": true, "workdir": true, "batch": true, "adapter_dir": true, "previous_adapter_dir": true}

// callRole checks word w, an argument of a simple command.
func (c *classifier) callRole(s *site, w *syntax.Word, call *syntax.CallExpr) error {
	for i, a := range call.Args {
		if a == w {
			return c.argRole(s, call.Args, i)
		}
	}
	return nil
}

// argRole checks args[idx], a word of the simple command args, by what
// the program that command runs does with it.
func (c *classifier) argRole(s *site, args []*syntax.Word, idx int) error {
	j := 0
	for {
		if idx == j {
			return c.refuse(s, "a value cannot choose the command to run; name the command in the template and pass the value as an argument")
		}
		name, ok := c.static(args[j])
		if !ok {
			return c.refuse(s, "the program %s is known only when the command runs, so what it does with this value cannot be checked; name the program literally", c.wordText(args[j]))
		}
		base := path.Base(name)
		if what, ok := codeOperands[base]; ok {
			return c.refuse(s, "%s reads its operands as %s, so a value there could run commands; pass it to %s differently", base, what, base)
		}
		if why, ok := joiners[base]; ok {
			return c.refuse(s, "%s, so a value among its words could run as code; pass the value in the file {{config}} names or as an argument of a script that %s runs", why, base)
		}
		w, at, sub := c.wrapperAt(base, args, j)
		switch {
		case sub != "" && idx == j+1:
			return c.refuse(s, "a value cannot choose the subcommand of %s; write it in the template", base)
		case sub != "" && idx > j:
			return c.refuse(s, "cannot tell what %s runs: its subcommand %s is known only when the command runs; write it literally", base, sub)
		}
		if w != nil {
			next, err := c.wrapperRole(s, base, w, args, at, j, idx)
			if next < 0 {
				return err
			}
			j = next
			continue
		}
		if base == "find" {
			return c.findRole(s, args, j, idx)
		}
		if g := interpreterOf(base); g != nil {
			return c.interpRole(s, base, g, args, j, idx)
		}
		return c.dataRole(s, base, args, j, idx)
	}
}

// wrapperRole checks args[idx] as a word of wrapper w (base at args[j],
// read from args[at]). next is the index of the command the wrapper runs,
// where idx is a word of that command, else -1 with err the verdict.
func (c *classifier) wrapperRole(s *site, base string, w *wrapper, args []*syntax.Word, at, j, idx int) (next int, err error) {
	wr := c.wrapped(w, args, at)
	if opt, ok := wr.code[idx]; ok {
		return -1, c.refuse(s, "%s %s takes shell code, so a value there runs as code; pass the value as an argument of the command %s runs", base, opt, base)
	}
	if wr.assigns[idx] {
		if pre, ok := prefixLit(args[idx]); ok {
			if name, _, isAssign := strings.Cut(pre, "="); isAssign && codeVars[name] {
				return -1, c.refuse(s, "bash reads %s as code or arithmetic; a value cannot be assigned to it", name)
			}
		}
	}
	if wr.cmd < 0 || idx < wr.cmd {
		if wr.unknown != "" && wr.cmd < 0 && idx > j {
			return -1, c.refuse(s, "cannot tell which command %s runs: %s is known only when the command runs; write %s's options literally", base, wr.unknown, base)
		}
		return -1, nil
	}
	if wr.shell != "" {
		return -1, c.refuse(s, "%s %s runs its command through a shell, so a value there could run as code", base, wr.shell)
	}
	return wr.cmd, nil
}

// dataRole checks args[idx] as a word of program base at args[j], a
// program not known to read its words as code.
func (c *classifier) dataRole(s *site, base string, args []*syntax.Word, j, idx int) error {
	// A program not known to read its words as code: they are data,
	// unless an interpreter named among them takes this one as code
	// (an unknown launcher such as srun python -c ...).
	for m := j + 1; m < idx; m++ {
		t, ok := c.static(args[m])
		if !ok {
			continue
		}
		if g := interpreterOf(path.Base(t)); g != nil && g != interpreters["."] && g != interpreters["source"] {
			r := c.read(g, args[m+1:])
			if k := idx - m - 1; r.roles[k] == roleCode {
				return c.refuse(s, "%s %s takes code, so a value there runs as code; pass the value as an argument after it, or in the file {{config}} names", path.Base(t), r.opt[k])
			}
		}
	}
	prev := ""
	if idx > 0 {
		prev, _ = lit(args[idx-1])
	}
	switch {
	case base == "printf" && (prev == "-v" || strings.HasPrefix(lead(args[idx]), "-v")):
		return c.refuse(s, "printf -v takes a variable name; a value cannot stand there")
	case (base == "test" || base == "[") && (prev == "-v" || prev == "-R"):
		return c.refuse(s, "test %s takes a variable name; a value cannot stand there", prev)
	}
	return nil
}

// interpRole checks args[idx] as a word of interpreter base at args[j].
func (c *classifier) interpRole(s *site, base string, g *grammar, args []*syntax.Word, j, idx int) error {
	r := c.read(g, args[j+1:])
	k := idx - j - 1
	switch r.roles[k] {
	case roleCode:
		if g.shell {
			return c.refuse(s, "the script of %s -c is code for another shell; pass the value as an argument after it: %s -c '... \"$1\" ...' _ {{...}}", base, base)
		}
		return c.refuse(s, "%s reads this word (%s) as code, so a value there runs as code; pass the value as an argument the program reads as data, or in the file {{config}} names", base, r.opt[k])
	case roleLoad:
		if trusted[s.name] && !s.raw && !s.taint {
			return nil
		}
		return c.refuse(s, "%s runs the file or module this word names (%s), so a value there chooses the code that runs; name it in the template and pass the value as an argument after it", base, r.opt[k])
	case roleUnknown:
		return c.refuse(s, "cannot tell how %s reads this word: %s before it is known only when the command runs; write %s's options literally", base, r.unknown, base)
	}
	if g.shell {
		// A positional parameter of a -c script: follow it into the script.
		for m := k - 1; m >= 0; m-- {
			if r.roles[m] == roleCode {
				return c.innerScript(s, base, args[j+1+m], k-m-1)
			}
		}
	}
	return nil
}

// findRole checks args[idx], a word of find at args[j]: the command of
// -exec is checked as a command of its own, and find's other words may
// hold a value only when no -exec puts what find finds ({}) into code.
func (c *classifier) findRole(s *site, args []*syntax.Word, j, idx int) error {
	interp := ""
	for m := j + 1; m < len(args); m++ {
		t, _ := c.static(args[m])
		if t != "-exec" && t != "-execdir" && t != "-ok" && t != "-okdir" {
			continue
		}
		end := m + 1
		for end < len(args) {
			if e, _ := c.static(args[end]); e == ";" || e == "+" {
				break
			}
			end++
		}
		if idx > m && idx < end {
			return c.argRole(s, args[m+1:end], idx-m-1)
		}
		if m+1 < end {
			if p := c.markerInCode(args[m+1:end], "{}"); p != "" {
				interp = p
			}
		}
		m = end
	}
	if interp != "" {
		return c.refuse(s, "find puts the names it finds, which this value shapes, into code of %s through -exec ... {}; pass the names to it as arguments instead", interp)
	}
	return nil
}
