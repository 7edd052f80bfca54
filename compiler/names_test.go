package compiler

import (
	"strings"
	"testing"
)

func TestNamesWithControlCharacters(t *testing.T) {
	base := readBase(t)
	for _, c := range []struct{ old, new, want string }{
		{`name = "base"`, `name = "base\n"`, `the spec's name "base\n" holds a newline at character 5`},
		{`environment "olmo3" {`, `environment "olmo3\u001b[2J" {`, `environment name "olmo3\x1b[2J" holds an escape`},
		{`environment "olmo3" {`, `environment "olmo3\u0000" {`, `holds NUL`},
		{`environment "olmo3" {`, `environment "olmo3\u007f" {`, `control character U+007F`},
		{`environment "olmo3" {`, `environment "olmo3\u0085" {`, `control character U+0085`},
		{`task "t1" {`, `task "t1\r" {`, `task name "t1\r" holds a carriage return`},
		{`task "t1" {`, `task "t1\t" {`, `holds a tab`},
		{`role "judge" {`, `role "ju\u202edge" {`, `role name "ju\u202edge" holds the bidirectional control U+202E`},
		{`role "judge" {`, `role "judge\u2066" {`, `bidirectional control U+2066`},
		{`plugin "offline" {`, `plugin "off\u200bline" {`, `invisible format character U+200B`},
		{`reward "rwm_gain" {`, `reward "rwm\u2028gain" {`, `line separator U+2028`},
		{`critic "screen" {`, `critic "scr\ufeffeen" {`, `invisible format character U+FEFF`},
		{`loop "policy" {`, `loop "pol\u0007icy" {`, `control character U+0007`},
		{`    name      = "val_bpb"`, `    name      = "val\nbpb"`, `environment.olmo3.metric.name "val\nbpb" holds a newline`},
	} {
		src, line := mutate(t, base, c.old, c.new)
		_, ds := compileSource(t, "base.hcl", []byte(src))
		found := false
		for _, d := range ds {
			if d.Code != CodeNameChars {
				continue
			}
			found = true
			if d.Range.Start.Line != line || !strings.Contains(d.Summary, c.want) || !strings.Contains(d.Detail, "rename it") {
				t.Errorf("%s: got line %d %q (%s), want line %d containing %q", c.new, d.Range.Start.Line, d.Summary, d.Detail, line, c.want)
			}
			if strings.ContainsFunc(d.Summary+d.Detail, func(r rune) bool { _, bad := badNameRune(r); return bad }) {
				t.Errorf("%s: the diagnostic itself holds a raw control character: %q", c.new, d.Summary+d.Detail)
			}
		}
		if !found {
			t.Errorf("%s: no %s in\n%s", c.new, CodeNameChars, ds.Format(0))
		}
	}
}

// Visible characters of any script are fine.
func TestNamesVisibleUnicode(t *testing.T) {
	base := readBase(t)
	src, _ := mutate(t, base, `name = "base"`, `name = "modèle-模型 ✓ test"`)
	src, _ = mutate(t, src, `task "t1" {`, `task "tâche 1" {`)
	_, ds := compileSource(t, "base.hcl", []byte(src))
	for _, d := range ds {
		if d.Code == CodeNameChars {
			t.Errorf("visible name refused: %s", d.Summary)
		}
	}
	if ds.HasErrors() {
		t.Fatalf("%s", ds.Format(0))
	}
}

func TestVisibleName(t *testing.T) {
	if got := visibleName("a\x1b[2J\u202eb\xffc"); got != "a[2Jbc" {
		t.Errorf("got %q", got)
	}
	if _, at, ok := nameProblem("ab\xff"); !ok || at != 3 {
		t.Errorf("invalid UTF-8: %d %v", at, ok)
	}
}
