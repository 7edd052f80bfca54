package sim

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// encode is json.Marshal of a simulated answer, written without
// reflection for the kinds of answer a rehearsal makes by the hundred
// thousand; any other value, and a gain that is not a finite number, goes
// through encoding/json. TestEncodeIsMarshal holds it to encoding/json's
// bytes, and fails when one of the types it writes gains a field.
func encode(v any) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case payload.ProposeResponse:
		b = make([]byte, 0, 16+128*len(x.Proposals))
		b = append(b, `{"proposals":`...)
		if x.Proposals == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, p := range x.Proposals {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendProposal(b, p)
			}
			b = append(b, ']')
		}
		return append(b, '}'), nil
	case payload.PredictResponse:
		if !finite(x.PredictedGain) || !finite(x.Confidence) {
			break
		}
		b = make([]byte, 0, 80)
		b = append(b, `{"predicted_gain":`...)
		b = appendFloat(b, x.PredictedGain)
		b = append(b, `,"confidence":`...)
		b = appendFloat(b, x.Confidence)
		return append(b, '}'), nil
	case payload.ImplementResponse:
		if len(x.Files) > 0 || len(x.Edits) > 0 {
			return json.Marshal(v) // the simulated world answers with patches only
		}
		b = make([]byte, 0, 160+len(x.Reason)+len(x.Patch))
		b = append(b, `{"proposal":`...)
		b = appendProposal(b, x.Proposal)
		if x.Infeasible {
			b = append(b, `,"infeasible":true`...)
		}
		b = appendOptional(b, `,"reason":`, x.Reason)
		b = appendOptional(b, `,"patch":`, x.Patch)
		return append(b, '}'), nil
	case payload.SummarizeResponse:
		b = make([]byte, 0, 16+len(x.Summary))
		b = append(b, `{"summary":`...)
		b = payload.AppendJSONString(b, x.Summary)
		return append(b, '}'), nil
	case payload.CritiqueResponse:
		b = make([]byte, 0, 24+len(x.Label)+len(x.Reason))
		b = append(b, `{"label":`...)
		b = payload.AppendJSONString(b, x.Label)
		b = appendOptional(b, `,"reason":`, x.Reason)
		return append(b, '}'), nil
	}
	return json.Marshal(v)
}

func appendProposal(b []byte, p plugins.Proposal) []byte {
	b = append(b, `{"ID":`...)
	b = payload.AppendJSONString(b, p.ID)
	b = append(b, `,"Text":`...)
	b = payload.AppendJSONString(b, p.Text)
	b = append(b, `,"Mechanism":`...)
	b = payload.AppendJSONString(b, p.Mechanism)
	b = append(b, `,"Edits":`...)
	if p.Edits == nil {
		b = append(b, "null"...)
	} else {
		// encoding/json writes a map's keys sorted.
		keys := make([]string, 0, len(p.Edits))
		for k := range p.Edits {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = payload.AppendJSONString(b, k)
			b = append(b, ':')
			b = payload.AppendJSONString(b, p.Edits[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"Patch":`...)
	b = payload.AppendJSONString(b, p.Patch)
	b = appendOptional(b, `,"Commit":`, p.Commit)
	return append(b, '}')
}

// appendOptional appends an omitempty string field.
func appendOptional(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return payload.AppendJSONString(append(b, name...), s)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendFloat appends a finite float64 as encoding/json writes one: the
// shortest decimal that reads back the same, in exponent form below 1e-6
// and from 1e21, with a one-digit exponent written without its zero.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
