package main

import (
	"fmt"
	"strings"
	"time"
)

// spliceTables is the generated section of doc (the file's text) with the
// tables of results in place of those of the same experiments, in the
// experiments' order, each rerun table noting how it was run; the other
// tables and the section's head stay as they were. ok is false when doc
// has no generated section to splice into.
func spliceTables(doc string, results []*experimentResult, only string, seeds int, took, cpu time.Duration, mach string) (string, bool) {
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		return "", false
	}
	sec := strings.TrimPrefix(doc[i+len(beginMark):j], "\n")
	head, blocks := splitTables(sec)
	fresh := map[string]*experimentResult{}
	for _, r := range results {
		fresh[r.Title] = r
	}
	note := fmt.Sprintf("This table was rerun alone (`go run ./internal/reproduce -only %q`, %d seeds per arm) in %s of wall-clock time and %s of CPU time on %s.",
		only, seeds, took.Round(time.Second), cpu.Round(time.Second), mach)
	var b strings.Builder
	b.WriteString(head)
	for _, e := range experiments {
		if r := fresh[e.Title]; r != nil {
			b.WriteString(renderTable(r, note))
		} else if old, ok := blocks[e.Title]; ok {
			b.WriteString(old)
		}
	}
	return b.String(), true
}

// splitTables splits a generated section into its head and its tables by
// title, each table from its "\n### " heading to the next.
func splitTables(sec string) (string, map[string]string) {
	const mark = "\n### "
	blocks := map[string]string{}
	k := strings.Index(sec, mark)
	if k < 0 {
		return sec, blocks
	}
	head, rest := sec[:k], sec[k:]
	for rest != "" {
		next := strings.Index(rest[len(mark):], mark)
		block := rest
		if next >= 0 {
			block = rest[:len(mark)+next]
		}
		title, _, _ := strings.Cut(block[len(mark):], "\n")
		blocks[title] = block
		rest = rest[len(block):]
	}
	return head, blocks
}
