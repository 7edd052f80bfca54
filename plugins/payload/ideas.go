package payload

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/plugins"
)

// How a proposer's free-text answer is read (ProposeRequest.Format).
const (
	// IdeasText: the whole answer is one idea.
	IdeasText = "text"
	// IdeasList: each item of the answer's numbered or bulleted list is
	// one idea; prose around the list is left out.
	IdeasList = "list"
)

// MaxIdeas bounds the ideas read from one answer.
const MaxIdeas = 256

var (
	// mechanismTag is an idea's leading "[mechanism]".
	mechanismTag = regexp.MustCompile(`^\[([A-Za-z][A-Za-z0-9 _/-]{0,39})\]\s*`)
	numbered     = regexp.MustCompile(`^([ \t]*)(\d{1,4})[.)][ \t]+(.*)$`)
	bulleted     = regexp.MustCompile(`^([ \t]*)([-*+•])[ \t]+(.*)$`)
)

// ParseIdeas reads a proposer's free-text answer by format (IdeasText or
// IdeasList) as its proposals. An idea that begins with a mechanism in
// square brackets ("[optimizer] Raise the learning rate ...") has that
// mechanism, the tag taken off its text. A text idea is the whole answer
// (one fence around it taken off), with ID "idea"; a list's ideas are its
// items in order, each with its continuation lines, numbered ones with
// their number as ID, bulleted ones with their place. An answer with no
// idea is an error.
func ParseIdeas(format, text string) (ProposeResponse, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out ProposeResponse
	switch format {
	case IdeasText:
		idea := strings.TrimSpace(unfence(text))
		if idea == "" {
			return out, errors.New("the answer is empty: it holds no idea")
		}
		out.Proposals = []plugins.Proposal{newIdea("idea", idea)}
	case IdeasList:
		items := listItems(text)
		if len(items) == 0 {
			return out, errors.New("the answer has no numbered or bulleted list of ideas")
		}
		out.Proposals = items
	default:
		return out, fmt.Errorf("no idea format %q (want %q or %q)", format, IdeasText, IdeasList)
	}
	return out, nil
}

// newIdea is a proposal of text, its leading mechanism tag read.
func newIdea(id, text string) plugins.Proposal {
	p := plugins.Proposal{ID: id, Text: text}
	if m := mechanismTag.FindStringSubmatch(text); m != nil && len(m[0]) < len(text) {
		p.Mechanism, p.Text = strings.TrimSpace(m[1]), strings.TrimSpace(text[len(m[0]):])
	}
	return p
}

// unfence takes off one fence that holds the whole text.
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return text
	}
	t = strings.TrimSuffix(t, "```")
	if _, body, ok := strings.Cut(t, "\n"); ok {
		return body
	}
	return text
}

// listItem reads a list item's marker: its indentation, its kind (1
// numbered, 0 bulleted), its number and its text; an item written in bold
// ("**1. Title**: ...") loses the bold.
func listItem(l string) (indent string, kind, n int, text string, ok bool) {
	bold := ""
	if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "**") || strings.HasPrefix(t, "__") {
		bold = t[:2]
		l = l[:len(l)-len(t)] + t[2:]
	}
	if m := numbered.FindStringSubmatch(l); m != nil {
		n, _ = strconv.Atoi(m[2])
		indent, kind, text, ok = m[1], 1, m[3], true
	} else if m := bulleted.FindStringSubmatch(l); m != nil && bold == "" {
		indent, text, ok = m[1], m[3], true
	}
	if ok && bold != "" {
		text = strings.Replace(text, bold, "", 1)
	}
	return indent, kind, n, text, ok && strings.TrimSpace(text) != ""
}

// listItems reads the items of the first list in text: items of the first
// item's kind (numbered or bulleted) and indentation. An item goes on over
// the lines after it that are not such items (nested lists included) up
// to a blank line followed by a line that is not indented, which ends it.
func listItems(text string) []plugins.Proposal {
	lines := strings.Split(text, "\n")
	var (
		out    []plugins.Proposal
		cur    []string
		id     string
		indent string
		kind   = -1 // 1 numbered, 0 bulleted
		gap    bool // a blank line since the item's last line
	)
	flush := func() {
		if cur != nil && len(out) < MaxIdeas {
			out = append(out, newIdea(id, strings.TrimSpace(strings.Join(cur, "\n"))))
		}
		cur = nil
	}
	for _, l := range lines {
		in, k, n, t, ok := listItem(l)
		if ok && (kind < 0 || (k == kind && in == indent)) {
			flush()
			kind, indent, gap = k, in, false
			id = strconv.Itoa(len(out) + 1)
			if k == 1 {
				id = strconv.Itoa(n)
			}
			cur = []string{t}
			continue
		}
		switch {
		case cur == nil:
		case strings.TrimSpace(l) == "":
			gap = true
		case gap && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t"):
			flush() // prose after the item
		default:
			if gap {
				cur = append(cur, "")
			}
			cur, gap = append(cur, strings.TrimSpace(l)), false
		}
	}
	flush()
	return out
}
