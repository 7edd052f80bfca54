package gitrepo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// File is an editable file of a commit, as shown to the builder.
type File struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Truncated marks a file cut at the per-file limit (or left empty
	// once the total limit was reached, or when it is over MaxOutput).
	Truncated bool `json:"truncated,omitempty"`
}

// Files returns the editable regular files of commit, in path order, each
// cut to perFile bytes and all together to total bytes; at most maxFiles.
// A file over MaxOutput bytes is shown empty and truncated. It runs two
// git processes whatever the number of files: ls-tree, which gives each
// blob's size (so which blobs are read, and how much of each is kept, is
// known before any is read), and one cat-file --batch for those blobs.
func (r *Repo) Files(ctx context.Context, commit string, editable []string, perFile, total, maxFiles int) ([]File, error) {
	if !commitID.MatchString(commit) {
		return nil, fmt.Errorf("files of %q: not a commit id", commit)
	}
	out, err := run(ctx, r.Dir, nil, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	var (
		files []File
		ids   []string // the blob each file with content reads, or ""
		keep  []int    // how many of its bytes it keeps
		read  strings.Builder
		size  int
	)
	left := total
	for _, rec := range strings.Split(out, "\x00") {
		e, ok := treeEntry(rec)
		if !ok || !Match(editable, e.path) {
			continue
		}
		if len(files) == maxFiles {
			break
		}
		file, id, n := File{Path: e.path}, "", 0
		switch {
		case left <= 0:
			file.Truncated = true
		case e.size > MaxOutput:
			file.Truncated = true // as git's output bound always cut it
		default:
			id, n = e.id, min(e.size, perFile, left)
			file.Truncated = n < e.size
			left -= n
			read.WriteString(id + "\n")
			size += e.size + len(id) + 32
		}
		files, ids, keep = append(files, file), append(ids, id), append(keep, n)
	}
	if read.Len() == 0 {
		return files, nil
	}
	body, err := runLimit(ctx, r.Dir, []byte(read.String()), size, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	blobs, err := readBatch(body)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", commit, err)
	}
	for i, id := range ids {
		if id == "" {
			continue
		}
		if len(blobs) == 0 || blobs[0].id != id {
			return nil, fmt.Errorf("files of %s: git did not answer for blob %s of %s", commit, id, files[i].Path)
		}
		files[i].Content = blobs[0].body[:min(keep[i], len(blobs[0].body))]
		blobs = blobs[1:]
	}
	return files, nil
}

// objectID is a blob's or tree's id, written as a commit's is.
var objectID = commitID

// lsEntry is a blob of a regular file in `git ls-tree -r -l -z`.
type lsEntry struct {
	id, path string
	size     int
}

// treeEntry reads one record of `git ls-tree -r -l -z`: "MODE SP TYPE SP
// ID SP+ SIZE TAB PATH"; ok is false for what is not a regular file's
// blob.
func treeEntry(rec string) (lsEntry, bool) {
	meta, p, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || p == "" || len(f) != 4 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") || !objectID.MatchString(f[2]) {
		return lsEntry{}, false
	}
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 0 {
		return lsEntry{}, false
	}
	return lsEntry{id: f[2], path: p, size: n}, true
}

// batchObject is an object in `git cat-file --batch` output.
type batchObject struct {
	id, body string
}

// readBatch reads `git cat-file --batch` output: per object "ID SP TYPE
// SP SIZE LF CONTENT LF". An object git reports missing, a header it
// cannot have written or a body shorter than its size is an error.
func readBatch(out string) ([]batchObject, error) {
	var objs []batchObject
	for out != "" {
		head, rest, ok := strings.Cut(out, "\n")
		if !ok {
			return nil, fmt.Errorf("git cat-file: a header without its end: %.80q", head)
		}
		f := strings.Fields(head)
		if len(f) == 2 && f[1] == "missing" {
			return nil, fmt.Errorf("git cat-file: object %.80s is missing", f[0])
		}
		if len(f) != 3 || !objectID.MatchString(f[0]) {
			return nil, fmt.Errorf("git cat-file: unreadable header %.80q", head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n >= len(rest) || rest[n] != '\n' {
			return nil, fmt.Errorf("git cat-file: object %s: its %s bytes are not all there", f[0], f[2])
		}
		objs = append(objs, batchObject{id: f[0], body: rest[:n]})
		out = rest[n+1:]
	}
	return objs, nil
}
