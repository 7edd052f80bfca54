package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// codeLit is a diagnostic code written as a Go string literal: E_ and W_
// codes, and the CUE front end's cue_ codes.
var codeLit = regexp.MustCompile(`"((?:E|W)_[A-Z0-9_]*[A-Z0-9]|cue_[a-z]+)"`)

// emittedCodes scans every non-test Go file of the module (but this
// package, which only documents) for code literals, by code with one file
// that writes it.
func emittedCodes(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "gendocs" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codeLit.FindAllStringSubmatch(string(b), -1) {
			if _, ok := out[m[1]]; !ok {
				out[m[1]] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryCodeDocumented fails when the code emits a diagnostic code that
// no package's Codes list documents (so the reference would miss it), and
// when a documented code is emitted nowhere (a stale entry).
func TestEveryCodeDocumented(t *testing.T) {
	emitted := emittedCodes(t)
	if len(emitted) < 50 {
		t.Fatalf("found only %d codes; is the scan broken?", len(emitted))
	}
	documented := map[string]bool{}
	for _, c := range allCodes() {
		documented[c.Code] = true
		if strings.TrimSpace(c.Meaning) == "" {
			t.Errorf("%s has no meaning", c.Code)
		}
		if _, ok := emitted[c.Code]; !ok {
			t.Errorf("%s is documented but no code emits it; remove it from its Codes list", c.Code)
		}
	}
	var missing []string
	for code, file := range emitted {
		if !documented[code] {
			missing = append(missing, code+" (written in "+file+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("code %s is emitted but not documented: add it to its package's Codes list", m)
	}
	doc := string(render())
	for code := range documented {
		if !strings.Contains(doc, "| `"+code+"` |") {
			t.Errorf("%s is missing from the reference's code table", code)
		}
	}
}
