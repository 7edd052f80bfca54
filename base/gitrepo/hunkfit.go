package gitrepo

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

const noNewline = `\ No newline at end of file`

// fitPatch reads patch leniently and writes it out as git writes it, each
// hunk of a file of the worktree fitted to that file (filePatch.fit). It
// refuses, before reading any file, a path the check refuses. A text with
// no file part is given back as it is, for CheckPatch to say why.
func fitPatch(ctx context.Context, worktree, patch string, editable []string) (string, error) {
	parts, err := readPatch(patch)
	if err != nil || len(parts) == 0 {
		return patch, err
	}
	var b strings.Builder
	for _, fp := range parts {
		old, new := fp.names()
		for _, p := range []string{old, new} {
			if p != devNull && p != "" {
				if err := checkPath(p, editable); err != nil {
					return "", err
				}
			}
		}
		if old != devNull && old != "" && len(fp.hunks) > 0 {
			content, ok, err := readTreeFile(worktree, old)
			if err != nil {
				return "", err
			}
			if ok && strings.Contains(content, "\r") {
				content = stagedContent(ctx, worktree, old, content)
			}
			if ok {
				if err := fp.fit(content); err != nil {
					return "", err
				}
			}
		}
		if err := fp.render(&b); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// stagedContent is p's content as worktree's index holds it, which is
// what git applies a patch to, or checkedOut (p's content in the
// worktree) where git cannot say. The two differ in a file git checks out
// with CRLF line ends (an eol attribute, core.autocrlf) and stores with
// LF: a patch fitted to the CRLF lines would not apply.
func stagedContent(ctx context.Context, worktree, p, checkedOut string) string {
	staged, err := runLimit(ctx, worktree, nil, MaxEditFile, "cat-file", "blob", ":"+p)
	if err != nil {
		return checkedOut
	}
	return staged
}

// fit fits the part's hunks to content, the file they change: each hunk's
// context and removed lines are found in it (exactly, else with trailing
// whitespace ignored) and take the file's own lines, added lines take its
// line ends (CRLF in a CRLF file), its header the place found, and a file
// without a final newline keeps none. A hunk found nowhere, or in several
// places none of which its line number names (within hunkSlack lines),
// is refused, as are two hunks that change the same lines.
func (fp *filePatch) fit(content string) error {
	lines := splitLines(content)
	crlf := strings.Count(content, "\r\n")*2 > strings.Count(content, "\n")
	noEOL := content != "" && !strings.HasSuffix(content, "\n")
	for n, h := range fp.hunks {
		h.lines = changesInOrder(slices.DeleteFunc(h.lines, func(l string) bool { return l[0] == '\\' }))
		var pre []string
		for _, l := range h.lines {
			if l[0] == ' ' || l[0] == '-' {
				pre = append(pre, l[1:])
			}
		}
		at, err := locate(lines, pre, h)
		if err != nil {
			return refuse(notApply+": hunk %d of %s (%s): %v", n+1, fp.path(), h.header(), err)
		}
		k := at
		for i, l := range h.lines {
			switch l[0] {
			case ' ', '-':
				h.lines[i] = l[:1] + strings.TrimSuffix(lines[k], "\n")
				k++
			case '+':
				if crlf && !strings.HasSuffix(l, "\r") {
					h.lines[i] = l + "\r"
				}
			}
		}
		if noEOL && len(pre) > 0 && at+len(pre) == len(lines) {
			h.lines = keepNoNewline(h.lines)
		}
		h.numbered, h.oldStart = true, at+1
		if len(pre) == 0 {
			h.oldStart = at // a hunk that only adds lines names the line before them
		}
	}
	slices.SortStableFunc(fp.hunks, func(a, b *hunk) int { return a.oldStart - b.oldStart })
	for i := 1; i < len(fp.hunks); i++ {
		a, b := fp.hunks[i-1], fp.hunks[i]
		if o, _ := a.counts(); a.oldStart+o > b.oldStart {
			return refuse(notApply+": two hunks of %s (%s and %s) change the same lines of it", fp.path(), a.header(), b.header())
		}
	}
	return nil
}

// header is how a hunk's header was written, for messages.
func (h *hunk) header() string {
	if !h.numbered {
		return "@@ @@"
	}
	return fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.oldStart, h.oldCount), hunkRange(h.newStart, h.newCount))
}

// changesInOrder puts each run of removed and added lines in git's order,
// removed first, which changes nothing of what the hunk does and lets a
// no-newline marker follow the old side's last line.
func changesInOrder(lines []string) []string {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && (lines[j][0] == '-' || lines[j][0] == '+') {
			j++
		}
		if j == i {
			i++
			continue
		}
		slices.SortStableFunc(lines[i:j], func(a, b string) int {
			return strings.IndexByte("-+", a[0]) - strings.IndexByte("-+", b[0])
		})
		i = j
	}
	return lines
}

// keepNoNewline marks the last line of a hunk that reaches the end of a
// file without a final newline: after the old side's last line, and, when
// lines are added after it, after the last of them, so the file keeps no
// final newline.
func keepNoNewline(lines []string) []string {
	last := -1
	for i, l := range lines {
		if l[0] == ' ' || l[0] == '-' {
			last = i
		}
	}
	out := slices.Insert(slices.Clone(lines), last+1, noNewline)
	if lines[last][0] == '-' && last < len(lines)-1 {
		out = append(out, noNewline)
	}
	return out
}

// locate finds where the old-side lines pre of h are in lines (each with
// its line end), as a 0-based line index; a hunk of added lines only is
// placed after the line its header names.
func locate(lines, pre []string, h *hunk) (int, error) {
	want := h.oldStart - 1 // 0-based
	if len(pre) == 0 {
		if !h.numbered {
			return 0, fmt.Errorf("it only adds lines and has no line number to say where")
		}
		return min(max(h.oldStart, 0), len(lines)), nil
	}
	exact := func(f, p string) bool { return trimEOL(f) == strings.TrimSuffix(p, "\r") }
	loose := func(f, p string) bool { return strings.TrimRight(f, " \t\r\n") == strings.TrimRight(p, " \t\r") }
	m := matchLines(lines, pre, exact)
	if len(m) == 0 {
		m = matchLines(lines, pre, loose)
	}
	switch {
	case len(m) == 0:
		return 0, fmt.Errorf("its context and removed lines are not in the file as it quotes them%s", firstMissing(lines, pre, loose))
	case len(m) == 1:
		return m[0], nil
	}
	if h.numbered {
		slices.SortStableFunc(m, func(a, b int) int { return abs(a-want) - abs(b-want) })
		if abs(m[0]-want) <= hunkSlack && abs(m[0]-want) < abs(m[1]-want) {
			return m[0], nil
		}
		slices.Sort(m)
	}
	return 0, fmt.Errorf("it is ambiguous: its lines are in %s of the file (lines %s) and its line number names none of them; quote more lines around the change, or give its line number", places(len(m)), lineList(m))
}

// matchLines are the 0-based indexes at which pre's lines are lines' lines
// under eq, at most maxMatches+1 of them.
func matchLines(lines, pre []string, eq func(f, p string) bool) []int {
	var out []int
	for i := 0; i+len(pre) <= len(lines); i++ {
		ok := true
		for k, p := range pre {
			if !eq(lines[i+k], p) {
				ok = false
				break
			}
		}
		if ok {
			if out = append(out, i); len(out) > maxMatches {
				break
			}
		}
	}
	return out
}

// firstMissing names the first of pre's lines that is nowhere in lines.
func firstMissing(lines, pre []string, eq func(f, p string) bool) string {
	for _, p := range pre {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if !slices.ContainsFunc(lines, func(f string) bool { return eq(f, p) }) {
			return fmt.Sprintf(" (%q is not in it)", excerpt(p))
		}
	}
	return " (its lines are in it, but not together in that order)"
}

func places(n int) string {
	if n > maxMatches {
		return fmt.Sprintf("more than %d places", maxMatches)
	}
	return fmt.Sprintf("%d places", n)
}

// lineList lists 0-based indexes as 1-based line numbers, the first few.
func lineList(m []int) string {
	var s []string
	for i, at := range m {
		if i == 5 {
			s = append(s, "...")
			break
		}
		s = append(s, fmt.Sprint(at+1))
	}
	return strings.Join(s, ", ")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// splitLines splits s after each "\n", keeping it; a last line without
// one is a line too.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// trimEOL drops a line's "\n" or "\r\n".
func trimEOL(l string) string {
	return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
}
