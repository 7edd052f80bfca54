package lsp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzWalk checks that reading any buffer, as typed, never panics and that
// everything found lies inside it.
func FuzzWalk(f *testing.F) {
	for _, name := range []string{"lm2lm.hcl", "lm2lm.cue", "critic-grpo.hcl", "lm2lm-eval.hcl"} {
		b, err := os.ReadFile(filepath.Join("..", "specs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Ext(name) == ".cue", len(b)/2)
	}
	f.Add([]byte("loop \"a\" {\n  reward = reward.\n"), false, 30)
	f.Add([]byte("role: rwm: {tokens: {in: 1"), true, 20)
	f.Add([]byte("dynamic \"environment\" {\n content {\n"), false, 40)
	f.Fuzz(func(t *testing.T, src []byte, cue bool, stop int) {
		if len(src) > 1<<16 {
			return
		}
		stop = max(0, min(stop, len(src)))
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
	})
}
