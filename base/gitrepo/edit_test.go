package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SEARCH/REPLACE edits and whole files change the worktree's real files
// and stage them, with the slips a model makes tolerated.
func TestEdit(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	editable := []string{"*.go", "*.txt", "*.py", "src"}
	shown := []string{"main.go", "dup.go", "spaces.txt"}
	tests := []struct {
		name     string
		writes   []Write
		replaces []Replace
		path     string
		want     string
	}{
		{"exact", nil, []Replace{{"main.go", "const rate = 0.5\n", "const rate = 0.25\n"}}, "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"trailing whitespace lost and CRLF in the answer", nil, []Replace{{"spaces.txt", "keep\r\nchange\r\n", "keep\r\nchanged\r\n"}}, "spaces.txt", "keep\nchanged\n"},
		{"indentation lost", nil, []Replace{{"indent.py", "x = 1\nreturn x\n", "x = 2\n\nreturn x\n"}}, "indent.py", "def f():\n    x = 2\n\n    return x\n"},
		{"two edits of one file, in order", nil, []Replace{{"main.go", "const rate = 0.5", "const rate = 0.25"}, {"main.go", "const rate = 0.25", "const rate = 0.125"}}, "main.go", strings.Replace(mainGo, "0.5", "0.125", 1)},
		{"no path: the one shown file that holds it", nil, []Replace{{"", "const rate = 0.5\n", "const rate = 2\n"}}, "main.go", strings.Replace(mainGo, "0.5", "2", 1)},
		{"a new file", nil, []Replace{{"src/new.go", "", "package src"}}, "src/new.go", "package src\n"},
		{"the last line of a file without a final newline", nil, []Replace{{"noeol.txt", "last\n", "LAST\n"}}, "noeol.txt", "first\nLAST"},
		{"a CRLF file", nil, []Replace{{"crlf.txt", "two\n", "2\n"}}, "crlf.txt", "one\r\n2\r\nthree\r\n"},
		{"a whole file keeps CRLF, gets its final newline", []Write{{"crlf.txt", "uno\ndos"}}, nil, "crlf.txt", "uno\r\ndos\r\n"},
		{"a whole file, then an edit of it", []Write{{"spaces.txt", "a\nb\n"}}, []Replace{{"spaces.txt", "b", "c"}}, "spaces.txt", "a\nc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wt := filepath.Join(t.TempDir(), "wt")
			if err := r.AddWorktree(ctx, wt, head); err != nil {
				t.Fatal(err)
			}
			paths, err := Edit(ctx, wt, tc.writes, tc.replaces, editable, shown)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if len(paths) != 1 || paths[0] != tc.path {
				t.Fatalf("paths %q, want %s", paths, tc.path)
			}
			if got := staged(t, wt, tc.path); got != tc.want {
				t.Fatalf("%s is %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// What is ambiguous, names no place or reaches beyond the editable files
// is refused, and the worktree is left as it was.
func TestEditRefuses(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("main.go", filepath.Join(wt, "link.go")); err != nil {
		t.Skip(err)
	}
	editable := []string{"*.go", "*.txt"}
	tests := []struct {
		name     string
		writes   []Write
		replaces []Replace
		want     string
	}{
		{"a SEARCH in two places", nil, []Replace{{"dup.go", "\treturn 1\n", "\treturn 2\n"}}, "ambiguous"},
		{"a SEARCH in no place", nil, []Replace{{"main.go", "const rate = 0.7\n", "x\n"}}, `"const rate = 0.7" is not in it`},
		{"no path, the text in two shown files", nil, []Replace{{"", "const rate = 0.5\n", "x\n"}}, "in main.go, other.go"},
		{"no path, the text in no file", nil, []Replace{{"", "nowhere\n", "x\n"}}, "names no file"},
		{"not editable", nil, []Replace{{"README", "seed\n", "x\n"}}, "not editable"},
		{"into .git", []Write{{".git/config", "x"}}, nil, "inside .git"},
		{"out of the repository", []Write{{"../x.go", "x"}}, nil, "leaves the repository"},
		{"a symlink", []Write{{"link.go", "x"}}, nil, "not a regular file"},
		{"a SEARCH on a file that is not there", nil, []Replace{{"none.go", "x\n", "y\n"}}, "not a file of the program"},
		{"an empty SEARCH on a file that is there", nil, []Replace{{"main.go", "", "x\n"}}, "SEARCH part is empty"},
		{"nothing changed", nil, []Replace{{"main.go", "const rate = 0.5\n", "const rate = 0.5\n"}}, "leave every file as it was"},
		{"a file written twice", []Write{{"main.go", "a"}, {"main.go", "b"}}, nil, "twice"},
		{"too many", nil, make([]Replace, MaxEdits+1), "limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Edit(ctx, wt, tc.writes, tc.replaces, editable, []string{"main.go", "dup.go", "other.go"})
			var pe *PatchError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
	for name, want := range map[string]string{"main.go": mainGo, "dup.go": "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"} {
		if b, _ := os.ReadFile(filepath.Join(wt, name)); string(b) != want {
			t.Fatalf("a refused edit changed %s: %q", name, b)
		}
	}
}

// FuzzReplaceOnce: any file, SEARCH and REPLACE text give a result or an
// error, never a panic; a result has the file's lines less the SEARCH
// lines plus the REPLACE lines, and is the same every time.
func FuzzReplaceOnce(f *testing.F) {
	f.Add(mainGo, "const rate = 0.5\n", "const rate = 1\n")
	f.Add("a\r\nb\r\n", "b", "c")
	f.Add("\tx\n\ty\n", "x\ny\n", "z\n")
	f.Add("last", "last", "")
	f.Fuzz(func(t *testing.T, content, search, repl string) {
		out, err := replaceOnce(content, search, repl)
		if err != nil {
			return
		}
		want := len(splitLines(content)) - len(textLines(search)) + len(textLines(repl))
		if got := len(splitLines(out)); got != want && !strings.Contains(content+search+repl, "\r") {
			t.Fatalf("replacing %q by %q in %q gave %q: %d lines, want %d", search, repl, content, out, got, want)
		}
		if again, err := replaceOnce(content, search, repl); err != nil || again != out {
			t.Fatalf("not deterministic: %q, %v", again, err)
		}
	})
}
