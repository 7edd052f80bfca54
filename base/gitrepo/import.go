package gitrepo

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bounds of a directory an import takes.
const (
	// MaxImportEntries bounds the files, directories and links taken.
	MaxImportEntries = 4096
	// MaxImportBytes bounds the bytes of the files taken, all together.
	MaxImportBytes = 64 << 20
)

// SeedRef is the ref of an imported repository that names its seed
// program: its HEAD may move (a user checks a best program out there).
const SeedRef = "refs/tags/seed"

// importWhen is the date of every imported seed commit, so the same files
// are the same commit wherever and whenever they are imported.
var importWhen = time.Unix(0, 0).UTC()

// entry is one path an import takes: a regular file or a symlink.
type entry struct {
	rel  string // slash-separated, from the import's top
	abs  string
	link string // a symlink's target; "" for a file
	exec bool
	size int64
}

// ImportSource is what an import takes: a directory, the paths it leaves
// out, and a directory laid over it ("" for none).
type ImportSource struct {
	Dir     string
	Exclude []string
	Overlay string
}

// scan lists the entries an import of src takes, in path order, refusing
// what an import would: a directory that is not one, more than
// MaxImportEntries entries or MaxImportBytes bytes, a file that is
// neither regular nor a symlink, and a symlink that is absolute, dangling
// or leads out of its directory. .git is left out at any depth, and so is
// every path Exclude matches (a matched directory whole).
func scan(src ImportSource) ([]entry, error) {
	byPath := map[string]entry{}
	var budget scanBudget
	if err := scanDir(src.Dir, src.Exclude, byPath, &budget); err != nil {
		return nil, err
	}
	if src.Overlay != "" {
		over := map[string]entry{}
		if err := scanDir(src.Overlay, nil, over, &budget); err != nil {
			return nil, fmt.Errorf("overlay: %w", err)
		}
		for p, e := range over {
			for dir := pathDir(p); dir != "."; dir = pathDir(dir) {
				if _, ok := byPath[dir]; ok {
					return nil, fmt.Errorf("overlay %s: %s is a file of %s, not a directory", src.Overlay, dir, src.Dir)
				}
			}
			byPath[p] = e
		}
		for p := range byPath {
			for dir := pathDir(p); dir != "."; dir = pathDir(dir) {
				if _, ok := over[dir]; ok {
					return nil, fmt.Errorf("overlay %s: %s is a file there and a directory in %s", src.Overlay, dir, src.Dir)
				}
			}
		}
	}
	out := make([]entry, 0, len(byPath))
	for _, e := range byPath {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

func pathDir(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "."
	}
	return p[:i]
}

type scanBudget struct {
	entries int
	bytes   int64
}

// scanDir adds dir's entries to into, keyed by their path from dir.
func scanDir(dir string, exclude []string, into map[string]entry, b *scanBudget) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	// Walked where it really is: a walk does not enter a symlink it
	// starts at, and would import nothing of a linked directory.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == real {
			return nil
		}
		rel, err := filepath.Rel(real, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.Name() == ".git" || Match(exclude, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if b.entries++; b.entries > MaxImportEntries {
			return fmt.Errorf("%s holds more than %d files and directories: leave some out with exclude", dir, MaxImportEntries)
		}
		e := entry{rel: rel, abs: p}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			if e.link, err = checkLink(real, p, rel); err != nil {
				return err
			}
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			e.size, e.exec = info.Size(), info.Mode()&0o111 != 0
			if b.bytes += e.size; b.bytes > MaxImportBytes {
				return fmt.Errorf("%s holds more than %d bytes: leave some out with exclude", dir, MaxImportBytes)
			}
		default:
			return fmt.Errorf("%s is neither a regular file nor a symlink", rel)
		}
		into[rel] = e
		return nil
	})
}

// checkLink returns the target of the symlink p (at rel inside the
// directory whose real path is real), refusing one that is absolute, climbs out of dir on
// its way, dangles or ends outside it: imported, it would reach outside
// the repository.
func checkLink(real, p, rel string) (string, error) {
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
		return "", fmt.Errorf("symlink %s points to the absolute path %s, outside the imported directory", rel, target)
	}
	depth := strings.Count(rel, "/")
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		switch part {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", fmt.Errorf("symlink %s points to %s, outside the imported directory", rel, target)
			}
		default:
			depth++
		}
	}
	to, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("symlink %s points to %s, which does not exist", rel, target)
	}
	if r, err := filepath.Rel(real, to); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("symlink %s leads to %s, outside the imported directory", rel, to)
	}
	return target, nil
}

// CheckImport reports whether src can be imported, as Import would find;
// the compiler calls it for validate and run alike.
func CheckImport(src ImportSource) error {
	_, err := scan(src)
	return err
}

// hashEntry writes each entry's path, kind and content to h.
func hashEntry(h hash.Hash, e entry, content io.Reader) (int64, error) {
	kind := "file"
	switch {
	case e.link != "":
		kind = "link"
	case e.exec:
		kind = "exec"
	}
	fmt.Fprintf(h, "%s\x00%s\x00", e.rel, kind)
	if e.link != "" {
		_, err := io.WriteString(h, e.link)
		h.Write([]byte{0})
		return 0, err
	}
	// A file that grows while it is read is cut at its scanned size and
	// then found changed: the import never takes more than it bounded.
	n, err := io.Copy(h, io.LimitReader(content, e.size+1))
	h.Write([]byte("\x00" + strconv.FormatInt(n, 10) + "\x00"))
	if err == nil && n != e.size {
		err = fmt.Errorf("%s changed while it was imported", e.rel)
	}
	return n, err
}

// contentHash is the hash of the entries' paths, kinds and contents.
func contentHash(entries []entry) (string, error) {
	h := sha256.New()
	for _, e := range entries {
		var r io.Reader
		if e.link == "" {
			f, err := os.Open(e.abs)
			if err != nil {
				return "", err
			}
			r = f
			_, err = hashEntry(h, e, f)
			f.Close()
			if err != nil {
				return "", err
			}
			continue
		}
		if _, err := hashEntry(h, e, r); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// Import makes, or finds, the repository root/<hash> whose one commit
// holds src's files (hash: their content's), tagged SeedRef, and returns
// it with that commit. The same files are the same commit: a later run
// reuses the repository, with every ref earlier runs left there.
func Import(ctx context.Context, src ImportSource, root string) (*Repo, string, error) {
	entries, err := scan(src)
	if err != nil {
		return nil, "", err
	}
	sum, err := contentHash(entries)
	if err != nil {
		return nil, "", err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, "", err
	}
	dir := filepath.Join(root, sum)
	if r, commit, err := openImported(ctx, dir); err == nil {
		return r, commit, nil
	} else if _, serr := os.Stat(dir); serr == nil {
		return nil, "", fmt.Errorf("imported repository %s: %v; remove it to import %s again", dir, err, src.Dir)
	}
	tmp, err := tempDir(root)
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	got, err := copyEntries(entries, tmp)
	if err != nil {
		return nil, "", err
	}
	if got != sum {
		return nil, "", fmt.Errorf("%s changed while it was imported; import it again", src.Dir)
	}
	if err := initSeed(ctx, tmp); err != nil {
		return nil, "", err
	}
	// A rename is atomic: two runs importing at once both end with one
	// whole repository, and a crash leaves only a temporary directory.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			return nil, "", err
		}
	}
	return openImported(ctx, dir)
}

// staleImport is how old a temporary import directory must be before a
// later import removes it: far longer than an import takes, so one under
// way in another process is never removed.
const staleImport = time.Hour

func tempDir(root string) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	removeStale(root, time.Now().Add(-staleImport))
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(root, ".tmp-"+hex.EncodeToString(b[:]))
	return tmp, os.Mkdir(tmp, 0o755)
}

// removeStale removes the temporary directories under root that an
// import a crash stopped left behind, last changed before cutoff. It is
// best effort: what it cannot remove stays for the next import.
func removeStale(root string, cutoff time.Time) {
	old, _ := filepath.Glob(filepath.Join(root, ".tmp-*"))
	for _, d := range old {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && fi.ModTime().Before(cutoff) {
			_ = os.RemoveAll(d)
		}
	}
}

// openImported opens an imported repository and resolves its seed.
func openImported(ctx context.Context, dir string) (*Repo, string, error) {
	r, err := Open(ctx, dir)
	if err != nil {
		return nil, "", err
	}
	commit, err := r.Resolve(ctx, SeedRef)
	if err != nil {
		return nil, "", err
	}
	return r, commit, nil
}

// copyEntries copies entries into dir and returns the hash of what it
// copied.
func copyEntries(entries []entry, dir string) (string, error) {
	h := sha256.New()
	for _, e := range entries {
		to := filepath.Join(dir, filepath.FromSlash(e.rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if e.link != "" {
			if err := os.Symlink(e.link, to); err != nil {
				return "", err
			}
			if _, err := hashEntry(h, e, nil); err != nil {
				return "", err
			}
			continue
		}
		if err := copyFile(h, e, to); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func copyFile(h hash.Hash, e entry, to string) error {
	in, err := os.Open(e.abs)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o644)
	if e.exec {
		mode = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = hashEntry(h, e, io.TeeReader(in, out))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// initSeed makes dir a repository whose one commit, tagged SeedRef, holds
// every file in it, ignore files notwithstanding (the import chose them).
func initSeed(ctx context.Context, dir string) error {
	if _, err := run(ctx, dir, nil, "init", "--quiet"); err != nil {
		return err
	}
	if _, err := run(ctx, dir, nil, "add", "--all", "--force"); err != nil {
		return err
	}
	commit, err := Commit(ctx, dir, "assay: imported seed program\n", importWhen)
	if err != nil {
		return err
	}
	_, err = run(ctx, dir, nil, "update-ref", SeedRef, commit)
	return err
}
