package lsp

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzWalkSeeds are short fragments of the spec languages, as typed: the
// fuzzer minimizes each new input in time quadratic in its length, and
// whole spec files as seeds (10 kB) stalled it at a few executions in 30
// s. TestWalkSpecs walks the whole files.
var fuzzWalkSeeds = []struct {
	src  string
	cue  bool
	stop int
}{
	{"loop \"a\" {\n  reward = reward.\n", false, 30},
	{"role: rwm: {tokens: {in: 1", true, 20},
	{"dynamic \"environment\" {\n content {\n", false, 40},
	{"role \"proposer\" {\n  llm = plugin.offline\n  tokens {\n    in  = 500\n    out = 100\n  }\n}\n", false, 35},
	{"environment \"e\" {\n  trainer = plugin.t\n  task \"t1\" { split = \"train\" }\n  source { build = [\"go\", \"vet\"] }\n}\n", false, 50},
	{"locals { n = [for x in var.xs : x * 2] }\nloop \"p\" { steps = local.n[0] # note\n}\n", false, 60},
	{"plugin: tinylm: {\n\tkind: \"trainer\"\n\tconfig: steps: 600\n}\nloop: policy: {reward: reward.gain, steps: 24}\n", true, 70},
	{"description = <<EOT\nline ${var.x}\nEOT\nseed = 1\n", false, 25},
}

// FuzzWalk checks that reading any buffer, as typed, never panics and that
// everything found lies inside it.
func FuzzWalk(f *testing.F) {
	for _, s := range fuzzWalkSeeds {
		f.Add([]byte(s.src), s.cue, s.stop)
	}
	f.Fuzz(func(t *testing.T, src []byte, cue bool, stop int) {
		if len(src) > 1<<16 {
			return
		}
		checkWalk(t, src, cue, max(0, min(stop, len(src))))
	})
}

// TestWalkSpecs walks every shipped spec, stopping at its start, a third,
// its middle and its end, as FuzzWalk walks its inputs.
func TestWalkSpecs(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.hcl", "*.cue", "*/*.hcl", "*/*.cue", "*/*/*.hcl"} {
		m, err := filepath.Glob(filepath.Join("..", "specs", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d specs", len(files))
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, stop := range []int{0, len(b) / 3, len(b) / 2, len(b)} {
			checkWalk(t, b, filepath.Ext(name) == ".cue", stop)
		}
	}
}

// checkWalk walks src to stop (within it): the cursor state is there, and
// every token, reference, definition and prefix found lies inside src.
func checkWalk(t *testing.T, src []byte, cue bool, stop int) {
	t.Helper()
	s, cur := walk(src, cue, stop)
	if cur == nil || cur.frame == nil {
		t.Fatal("no cursor state")
	}
	in := func(a, b int) {
		if a < 0 || b > len(src) || a > b {
			t.Fatalf("span [%d, %d) outside %d bytes", a, b, len(src))
		}
	}
	for _, tk := range s.toks {
		in(tk.start, tk.end)
	}
	for _, r := range s.refs {
		in(r.start, r.end)
	}
	for _, d := range s.defs {
		in(d.t.start, d.t.end)
	}
	if cur.prefix != nil {
		in(cur.prefix.start, cur.prefix.end)
	}
	analyze(src, cue)
}
