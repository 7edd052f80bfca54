package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSnapshot runs "snapshot DIR" and prints one line per file and
// directory under DIR: its path, type, size, modification time and, for a
// file, its SHA-256, so that two snapshots compare equal only when
// nothing under DIR was written (a file rewritten with the same bytes has
// another time). A directory's own time is left out: a SQLite reader's
// -shm and -wal files come and go beside the journal it reads.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot DIR")
	}
	root := ts.MkAbs(args[0])
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/ %v\n", rel, info.Mode())
			return nil
		}
		sum := "-"
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %v %d %d %s\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		ts.Fatalf("snapshot: %v", err)
	}
	fmt.Fprint(ts.Stdout(), b.String())
}
