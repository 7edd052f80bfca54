package gitrepo

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A patch as a model writes one is read leniently (readPatch) and written
// out again as git writes it (filePatch.render): its hunk headers counted
// from its lines, its paths given their a/ and b/ prefixes, its line ends
// LF. Where the program's files are at hand (Apply), each hunk is also
// fitted to its file (filePatch.fit): found by its lines, exactly or with
// trailing whitespace ignored, and given the file's own lines. git then
// applies exactly what the check saw.

const devNull = "/dev/null"

// hunkSlack is how far a hunk's line number may be from the place it
// names when its lines are found in several places.
const hunkSlack = 3

// maxMatches bounds the places of a hunk or a SEARCH text that are
// listed: past it, a text is as ambiguous as it gets.
const maxMatches = 16

// filePatch is one file's part of a patch.
type filePatch struct {
	git            bool     // it had a "diff --git" line
	gitOld, gitNew string   // that line's names, prefixes stripped
	extended       []string // its extended header lines (modes, index, renames)
	binary         []string // a binary part's lines, for CheckPatch to refuse
	named          bool     // it had --- and +++ lines
	old, new       string   // their names, prefixes stripped (devNull kept)
	hunks          []*hunk
	// first and last are the lines of the text it was read from.
	first, last int
}

// hunk is one hunk: its header's figures (numbered false when the header
// has none, as in a bare "@@ ... @@") and its lines, each one of ' ', '-',
// '+' or '\' and the line.
type hunk struct {
	numbered           bool
	oldStart, newStart int
	oldCount, newCount int
	section            string
	lines              []string
}

var hunkNumbers = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// readPatch reads the file parts of a patch written in text, which may
// hold prose, fences and CRLF line ends around and in it. A hunk's extent
// is read from its lines, not from its header's counts: a count that is
// too low takes the hunk lines that follow it, one too high ends at the
// first line that is no hunk line, and a blank line is a blank context
// line inside a hunk (its leading space lost) but ends one whose counts
// are met.
func readPatch(text string) ([]*filePatch, error) {
	lines := patchLines(text)
	var (
		out []*filePatch
		cur *filePatch
	)
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			o, n, err := gitNames(l[len("diff --git "):])
			if err != nil {
				return nil, err
			}
			cur = &filePatch{git: true, gitOld: o, gitNew: n, first: i, last: i}
			out = append(out, cur)
			i++
		case namePair(lines, i):
			if cur == nil || cur.named || len(cur.hunks) > 0 {
				cur = &filePatch{first: i}
				out = append(out, cur)
			}
			o, n, err := headerNames(headerName(lines[i][4:]), headerName(lines[i+1][4:]))
			if err != nil {
				return nil, err
			}
			cur.named, cur.old, cur.new, cur.last = true, o, n, i+1
			i += 2
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				return nil, refuse("the hunk %q has no file header before it: write --- a/PATH and +++ b/PATH above it", excerpt(l))
			}
			h, next, last := readHunk(lines, i)
			if len(h.lines) > 0 {
				cur.hunks = append(cur.hunks, h)
			}
			cur.last = last
			i = next
		case cur != nil && cur.git && !cur.named && len(cur.hunks) == 0 && extendedLine(l):
			cur.extended = append(cur.extended, l)
			cur.last = i
			i++
		case cur != nil && cur.git && (strings.HasPrefix(l, "GIT binary patch") || strings.HasPrefix(l, "Binary files ")):
			cur.binary = append(cur.binary, l)
			cur.last = i
			i++
		default:
			i++ // prose, a fence, a binary patch's data
		}
	}
	return out, nil
}

// patchLines are text's lines, each without its line end: "\n" or
// "\r\n" (a CR a model's answer carries is no part of the patch; fit
// gives a CRLF file's lines their CR back).
func patchLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

// namePair reports whether lines i and i+1 are a --- and +++ pair.
func namePair(lines []string, i int) bool {
	return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
}

func extendedLine(l string) bool {
	for _, p := range []string{"old mode ", "new mode ", "deleted file mode ", "new file mode ", "index ", "similarity index ",
		"dissimilarity index ", "rename from ", "rename to ", "copy from ", "copy to "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// readHunk reads the hunk whose header is lines[i]; next is the first line
// after it, last its last line (blank lines that end it left out).
func readHunk(lines []string, i int) (h *hunk, next, last int) {
	h = &hunk{oldCount: -1, newCount: -1}
	if m := hunkNumbers.FindStringSubmatch(lines[i]); m != nil {
		h.numbered = true
		h.oldStart, _ = strconv.Atoi(m[1])
		h.oldCount = count(m[2])
		h.newStart, _ = strconv.Atoi(m[3])
		h.newCount = count(m[4])
		h.section = m[5]
	}
	oldLeft, newLeft := h.oldCount, h.newCount
	blank := 0 // blank lines read as context at the hunk's end so far
	j := i + 1
loop:
	for ; j < len(lines); j++ {
		l := lines[j]
		if strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@") ||
			(namePair(lines, j) && (j+2 == len(lines) || strings.HasPrefix(lines[j+2], "@@"))) {
			break
		}
		met := h.numbered && oldLeft <= 0 && newLeft <= 0
		if l == "" {
			if met || (!h.numbered && !moreHunkLines(lines, j+1)) {
				break
			}
			h.lines = append(h.lines, " ")
			oldLeft, newLeft = oldLeft-1, newLeft-1
			blank++
			continue
		}
		switch l[0] {
		case ' ':
			oldLeft, newLeft = oldLeft-1, newLeft-1
		case '-':
			oldLeft--
		case '+':
			newLeft--
		case '\\':
		default:
			break loop
		}
		h.lines = append(h.lines, l)
		blank = 0
	}
	h.lines = h.lines[:len(h.lines)-blank]
	return h, j, j - 1 - blank
}

// moreHunkLines reports whether the first line from i that is not blank
// is a hunk line.
func moreHunkLines(lines []string, i int) bool {
	for ; i < len(lines) && lines[i] == ""; i++ {
	}
	return i < len(lines) && lines[i] != "" && strings.ContainsRune(" +-", rune(lines[i][0])) && !namePair(lines, i)
}

func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// headerName is the name a --- or +++ line gives: diff -u writes a date
// after a tab.
func headerName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, " \r")
}

// headerNames strips the a/ and b/ prefixes of a --- and +++ pair: git's
// own, or none (a model's slip: "--- train.py"). A name written the same
// on both sides with one and the same prefix (a/x and a/x) loses it.
func headerNames(old, new string) (string, string, error) {
	for _, n := range []string{old, new} {
		if strings.HasPrefix(n, `"`) {
			return "", "", refuse("quoted path %s: name files plainly", n)
		}
		if n == "" {
			return "", "", refuse("a --- or +++ line names no file")
		}
	}
	strip := func(s, p string) string {
		if s == devNull {
			return s
		}
		return strings.TrimPrefix(s, p)
	}
	o, n := strip(old, "a/"), strip(new, "b/")
	if o != n && old == new && old != devNull {
		if _, rest, ok := strings.Cut(old, "/"); ok {
			return rest, rest, nil
		}
		return old, new, nil
	}
	return o, n, nil
}

// gitNames reads the names of a "diff --git" line: "a/X b/Y", or without
// prefixes "X Y"; a line whose halves are one name reads as that name.
func gitNames(s string) (string, string, error) {
	s = strings.TrimRight(s, " \r")
	if strings.HasPrefix(s, `"`) {
		return "", "", refuse("quoted path in %q: name files plainly", excerpt("diff --git "+s))
	}
	if n := (len(s) - 1) / 2; len(s)%2 == 1 && s[n] == ' ' && s[:n] != "" {
		o, nw := s[:n], s[n+1:]
		if strings.HasPrefix(o, "a/") && strings.HasPrefix(nw, "b/") && o[2:] == nw[2:] {
			return o[2:], nw[2:], nil
		}
		if o == nw {
			return o, nw, nil
		}
	}
	if strings.HasPrefix(s, "a/") {
		if i := strings.Index(s, " b/"); i > 0 {
			return s[2:i], s[i+3:], nil
		}
	}
	o, n, _ := strings.Cut(s, " ")
	return o, n, nil
}

// path is the name of the file the part changes: its new name, or its
// old one for a deletion.
func (fp *filePatch) path() string {
	o, n := fp.names()
	if n == devNull {
		return o
	}
	return n
}

// names are the part's old and new names, from its --- and +++ lines or
// else its diff --git line.
func (fp *filePatch) names() (string, string) {
	if fp.named {
		return fp.old, fp.new
	}
	return fp.gitOld, fp.gitNew
}

// render writes the part as git writes a patch: a diff --git line (and
// the new or deleted file mode git needs beside /dev/null), its extended
// header, --- a/OLD and +++ b/NEW, and each hunk with its header counted
// from its lines, new starts following the changes before it.
func (fp *filePatch) render(b *strings.Builder) error {
	old, new := fp.names()
	if old == "" || new == "" || ((!fp.named || len(fp.hunks) == 0) && strings.Contains(old+new, " ")) {
		return refuse("a diff --git line without --- and +++ lines names no file plainly: write diff --git a/PATH b/PATH")
	}
	if strings.ContainsAny(old+new, "\t") {
		return refuse("path %q has a tab: name files plainly", old)
	}
	a, bn := old, new
	if a == devNull {
		a = new
	}
	if bn == devNull {
		bn = old
	}
	fmt.Fprintf(b, "diff --git a/%s b/%s\n", a, bn)
	ext := fp.extended
	if old == devNull && !slices.ContainsFunc(ext, func(l string) bool { return strings.HasPrefix(l, "new file mode ") }) {
		ext = append([]string{"new file mode 100644"}, ext...)
	}
	if new == devNull && !slices.ContainsFunc(ext, func(l string) bool { return strings.HasPrefix(l, "deleted file mode ") }) {
		ext = append([]string{"deleted file mode 100644"}, ext...)
	}
	for _, l := range append(ext, fp.binary...) {
		b.WriteString(l + "\n")
	}
	if len(fp.hunks) == 0 {
		return nil
	}
	side := func(p, prefix string) string {
		if p == devNull {
			return p
		}
		return prefix + p
	}
	fmt.Fprintf(b, "--- %s\n+++ %s\n", side(old, "a/"), side(new, "b/"))
	delta := 0
	for _, h := range fp.hunks {
		if !h.numbered {
			return refuse("a hunk of %s has no line numbers, and %s is not a file of the program to find it in: write @@ -L,N +L,N @@", fp.path(), fp.path())
		}
		o, n := h.counts()
		start := h.oldStart
		if o > 0 && start == 0 {
			start = 1
		}
		ns := start + delta
		switch {
		case o == 0:
			ns++
		case n == 0:
			ns--
		}
		fmt.Fprintf(b, "@@ -%s +%s @@%s\n", hunkRange(start, o), hunkRange(max(ns, 0), n), h.section)
		for _, l := range h.lines {
			b.WriteString(l + "\n")
		}
		delta += n - o
	}
	return nil
}

// counts are the hunk's old and new line counts, from its lines.
func (h *hunk) counts() (o, n int) {
	for _, l := range h.lines {
		switch l[0] {
		case ' ':
			o, n = o+1, n+1
		case '-':
			o++
		case '+':
			n++
		}
	}
	return o, n
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// ExtractPatch is the patch in a model's answer: the lines of each file
// part it holds, as written, without the prose, fences or other text
// around and between them; "" when it holds none. Apply reads it as it
// reads any patch. A part it cannot read (a hunk without a file header, a
// quoted path) is a *PatchError.
func ExtractPatch(text string) (string, error) {
	parts, err := readPatch(text)
	if err != nil {
		return "", err
	}
	lines := patchLines(text)
	var b strings.Builder
	for _, p := range parts {
		if !p.named && len(p.extended) == 0 && len(p.binary) == 0 && len(p.hunks) == 0 {
			continue // a diff --git line alone, as prose may quote one
		}
		for _, l := range lines[p.first : p.last+1] {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), nil
}

func excerpt(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
