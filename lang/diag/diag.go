package diag

import (
	"encoding/json"
	"fmt"
	"github.com/assay-lang/assay/lang/internal/budget"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops compilation.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalJSON writes the severity as a word.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Pos is a position in a source file. Line and Column start at 1; Byte at 0.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// Range is a span of source text. The zero Range means "no source".
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// Valid reports whether r points at a source file.
func (r Range) Valid() bool { return r.Filename != "" && r.Start.Line > 0 }

// String renders r as file:line:col.
func (r Range) String() string {
	if !r.Valid() {
		return r.Filename
	}
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// Diagnostic is one problem found in user input.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	// Code is stable across releases so scripts and docs can refer to it,
	// e.g. "E_UNKNOWN_REF" or "cue_constraint".
	Code    string `json:"code"`
	Summary string `json:"summary"`
	// Detail explains the problem and, where possible, what to do.
	Detail string `json:"detail,omitempty"`
	Range  Range  `json:"range"`
	// Snippet is the source line(s) the range points at, filled by Annotate.
	Snippet string `json:"snippet,omitempty"`
}

func (d *Diagnostic) Error() string {
	var b strings.Builder
	if d.Range.Valid() {
		b.WriteString(d.Range.String())
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s [%s]: %s", d.Severity, d.Code, d.Summary)
	if d.Detail != "" {
		b.WriteString("; ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// Diagnostics is a list of problems. A nil list means none.
type Diagnostics []*Diagnostic

// Errorf builds an error diagnostic.
func Errorf(code string, rng Range, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: Error, Code: code, Range: rng, Summary: fmt.Sprintf(format, args...)}
}

// Warnf builds a warning diagnostic.
func Warnf(code string, rng Range, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: Warning, Code: code, Range: rng, Summary: fmt.Sprintf(format, args...)}
}

// WithDetail sets the detail (what to do) and returns d, for chaining.
func (d *Diagnostic) WithDetail(format string, args ...any) *Diagnostic {
	d.Detail = fmt.Sprintf(format, args...)
	return d
}

// Append adds diagnostics (or other lists) and returns the extended list.
func (ds Diagnostics) Append(items ...any) Diagnostics {
	for _, it := range items {
		switch v := it.(type) {
		case nil:
		case *Diagnostic:
			if v != nil {
				ds = append(ds, v)
			}
		case Diagnostics:
			ds = append(ds, v...)
		case error:
			ds = append(ds, &Diagnostic{Severity: Error, Code: "E_INTERNAL", Summary: v.Error()})
		default:
			panic(fmt.Sprintf("diag.Append: unsupported %T", it))
		}
	}
	return ds
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Err returns the diagnostics as an error when any is an error, else nil.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return ds
}

func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "\n")
}

// Sort orders diagnostics by file, line and column, keeping the order of
// diagnostics at the same place stable.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Range, ds[j].Range
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Start.Line != b.Start.Line {
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
}

// Dedup drops exact repeats (same code, range and summary), which happen when
// two passes look at the same node.
func (ds Diagnostics) Dedup() Diagnostics {
	seen := map[string]bool{}
	var out Diagnostics
	for _, d := range ds {
		k := d.Code + "|" + d.Range.String() + "|" + d.Summary
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// Annotate fills each diagnostic's Snippet from the source files, read through
// src (file name -> content); when src lacks a file it is read from disk.
func (ds Diagnostics) Annotate(src map[string][]byte) {
	cache := map[string][]string{}
	for _, d := range ds {
		if !d.Range.Valid() || d.Snippet != "" {
			continue
		}
		lines, ok := cache[d.Range.Filename]
		if !ok {
			b, found := src[d.Range.Filename]
			if !found {
				// Bounded, regular files only: a snippet never waits on a
				// pipe or reads a device.
				b, _ = budget.ReadFile(d.Range.Filename, budget.DefaultMaxSourceBytes)
			}
			lines = strings.Split(string(b), "\n")
			cache[d.Range.Filename] = lines
		}
		if d.Range.Start.Line-1 < len(lines) {
			d.Snippet = strings.TrimRight(lines[d.Range.Start.Line-1], "\r")
		}
	}
}

// DefaultLimit is how many diagnostics Format prints before summarising the rest.
const DefaultLimit = 20

// Format renders diagnostics for a terminal: location, severity, code, summary,
// the source line with a caret under the column, and the detail. At most limit
// are printed (0 means DefaultLimit), followed by a count of the rest.
func (ds Diagnostics) Format(limit int) string {
	if limit <= 0 {
		limit = DefaultLimit
	}
	var b strings.Builder
	for i, d := range ds {
		if i == limit {
			fmt.Fprintf(&b, "... and %d more diagnostics not shown\n", len(ds)-limit)
			break
		}
		if d.Range.Valid() {
			fmt.Fprintf(&b, "%s: ", d.Range)
		} else if d.Range.Filename != "" {
			// A file that cannot be read has no line; name it all the same.
			fmt.Fprintf(&b, "%s: ", d.Range.Filename)
		}
		fmt.Fprintf(&b, "%s[%s]: %s\n", d.Severity, d.Code, d.Summary)
		if d.Snippet != "" {
			num := fmt.Sprintf("%4d | ", d.Range.Start.Line)
			fmt.Fprintf(&b, "%s%s\n", num, expandTabs(d.Snippet))
			col := d.Range.Start.Column
			if col < 1 {
				col = 1
			}
			width := 1
			if d.Range.End.Line == d.Range.Start.Line && d.Range.End.Column > col {
				width = d.Range.End.Column - col
			}
			fmt.Fprintf(&b, "%s%s%s\n", strings.Repeat(" ", len(num)-2)+"| ", strings.Repeat(" ", col-1), strings.Repeat("^", width))
		}
		if d.Detail != "" {
			fmt.Fprintf(&b, "  %s\n", d.Detail)
		}
	}
	return b.String()
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", " ") }

// Code documents one diagnostic code: what it means, for the language
// reference. Each package that emits codes lists its own (Codes); the
// reference gathers them, and a test fails when code emits one no list
// documents.
type Code struct{ Code, Meaning string }

// Codes are the codes this package emits itself.
var Codes = []Code{
	{Code: "E_INTERNAL", Meaning: "an internal failure was reported as a diagnostic (a bug in Assay: please report it with the spec)"},
}
