package model

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed corpus/opticks.txt
var opticksText string

// Corpus names.
const (
	CorpusGrammar = "grammar"
	CorpusOpticks = "opticks"
)

// GrammarSeed and GrammarBytes fix the generated corpus: every build and
// every run trains on the same text.
const (
	GrammarSeed  = 20240917
	GrammarBytes = 64 << 10
)

// Corpus is a text split into training and validation parts, encoded over
// its own byte vocabulary.
type Corpus struct {
	Name  string
	Vocab []byte // index -> byte
	Train []uint8
	Val   []uint8
}

var corpora = map[string]func() string{
	CorpusGrammar: func() string { return GrammarText(GrammarSeed, GrammarBytes) },
	CorpusOpticks: func() string { return opticksText },
}

// CorpusNames lists the corpora by name.
func CorpusNames() []string {
	var ns []string
	for n := range corpora {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// LoadCorpus builds a named corpus; the last tenth of the text is held out
// for validation.
func LoadCorpus(name string) (*Corpus, error) {
	gen, ok := corpora[name]
	if !ok {
		return nil, fmt.Errorf("unknown corpus %q (known: %s)", name, strings.Join(CorpusNames(), ", "))
	}
	return NewCorpus(name, gen()), nil
}

// NewCorpus encodes text over the bytes it contains.
func NewCorpus(name, text string) *Corpus {
	var seen [256]bool
	for i := 0; i < len(text); i++ {
		seen[text[i]] = true
	}
	c := &Corpus{Name: name}
	var index [256]uint8
	for b := range 256 {
		if seen[b] {
			index[b] = uint8(len(c.Vocab))
			c.Vocab = append(c.Vocab, byte(b))
		}
	}
	enc := make([]uint8, len(text))
	for i := 0; i < len(text); i++ {
		enc[i] = index[text[i]]
	}
	cut := len(enc) - len(enc)/10
	c.Train, c.Val = enc[:cut], enc[cut:]
	return c
}

// The grammar. Each sentence is
//
//	S      -> Clause [", and " Clause] "."        (a second clause with p = 0.2)
//	Clause -> NP VP
//	NP     -> Det [Adj] Noun [PP]                 (Adj p = 0.4, PP p = 0.25)
//	VP     -> Verb NP  |  Verb                    (transitive p = 0.6)
//	PP     -> Prep Det Noun
//
// An NP is plural with p = 0.3: its determiner comes from {the, some, many,
// two} and its noun takes "s"; otherwise from {the, a, every, no}. The verb
// agrees with the subject (a singular subject adds "s"), so a model gains by
// carrying number across the adjective and the prepositional phrase. The
// first letter of a sentence is capitalised; a paragraph ends after a
// sentence with p = 0.15. Word choices are uniform within each list.
var (
	gDetSing = []string{"the", "a", "every", "no"}
	gDetPlur = []string{"the", "some", "many", "two"}
	gAdj     = []string{"red", "small", "quiet", "bright", "old", "clever", "heavy", "green"}
	gNoun    = []string{"fox", "dog", "lamp", "prism", "river", "stone", "bird", "clock", "ray", "lens"}
	gVerb    = []string{"see", "follow", "bend", "find", "break", "carry", "light", "reflect"}
	gPrep    = []string{"near", "under", "behind", "beside", "above"}
)

// GrammarText generates about n bytes of text from the grammar with a
// seeded generator.
func GrammarText(seed uint64, n int) string {
	r := newRNG(seed)
	pick := func(xs []string) string { return xs[r.intn(len(xs))] }
	var b strings.Builder
	np := func() bool {
		plural := r.float() < 0.3
		if plural {
			b.WriteString(pick(gDetPlur))
		} else {
			b.WriteString(pick(gDetSing))
		}
		b.WriteByte(' ')
		if r.float() < 0.4 {
			b.WriteString(pick(gAdj))
			b.WriteByte(' ')
		}
		noun := pick(gNoun)
		b.WriteString(noun)
		if plural {
			if strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "s") {
				b.WriteString("e")
			}
			b.WriteString("s")
		}
		if r.float() < 0.25 {
			b.WriteString(" " + pick(gPrep) + " " + pick(gDetSing) + " " + pick(gNoun))
		}
		return plural
	}
	clause := func() {
		plural := np()
		b.WriteByte(' ')
		verb := pick(gVerb)
		b.WriteString(verb)
		if !plural {
			if strings.HasSuffix(verb, "h") {
				b.WriteString("e")
			}
			b.WriteString("s")
		}
		if r.float() < 0.6 {
			b.WriteByte(' ')
			np()
		}
	}
	for b.Len() < n {
		clause()
		if r.float() < 0.2 {
			b.WriteString(", and ")
			clause()
		}
		b.WriteString(".")
		if r.float() < 0.15 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return capitalise(b.String())
}

// capitalise upper-cases the first letter of each sentence.
func capitalise(s string) string {
	out := []byte(s)
	up := true
	for i, c := range out {
		switch {
		case c == '.':
			up = true
		case up && c >= 'a' && c <= 'z':
			out[i] = c - 'a' + 'A'
			up = false
		}
	}
	return string(out)
}

// rng is a PCG-style generator (a 64-bit LCG with an xorshift-multiply
// output), written out so the sequence never depends on a library version.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng {
	r := &rng{s: seed*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s = r.s*6364136223846793005 + 1442695040888963407
	z := r.s
	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccd
	z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53
	return z ^ (z >> 33)
}

// float returns a uniform value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// intn returns a value in [0, n); the modulo bias is below 2^-40 for the
// sizes used here.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
