package runtime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// writeBatch writes an update's samples as JSONL (batchLine, field for
// field as encoding/json writes it), atomically. The samples of a group
// share one state, so a state's prompt and compacted JSON are encoded
// once: they are most of every line, and encoding them per sample was
// most of a rehearsal's time.
func writeBatch(path string, proposer *plan.Role, step int, samples []plugins.Sample) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	b := bufio.NewWriterSize(f, 1<<16)
	seen := map[string]batchState{}
	for _, s := range samples {
		e, ok := seen[s.State]
		if !ok {
			var err error
			if e, err = encodeBatchState(proposer, s.State); err != nil {
				return err
			}
			seen[s.State] = e
		}
		if s.Completion == "" {
			// Nothing the policy said: there is no text to reinforce.
			return fmt.Errorf("batch: the sample of group %s has no completion", s.Group)
		}
		b.WriteString(`{"step":`)
		b.WriteString(strconv.Itoa(step))
		if err := batchField(b, `,"group":`, s.Group); err != nil {
			return err
		}
		b.WriteString(`,"prompt":`)
		b.Write(e.prompt)
		if err := batchField(b, `,"completion":`, s.Completion); err != nil {
			return err
		}
		b.WriteString(`,"state":`)
		b.Write(e.state)
		for _, f := range []struct {
			name string
			v    any
		}{{`,"proposal":`, s.Proposal}, {`,"reward":`, s.Reward}, {`,"advantage":`, s.Advantage}, {`,"policy":`, batchPolicy{Adapter: s.Policy.Adapter, AdapterDir: s.Policy.Path, Step: s.Policy.Step}}} {
			if err := batchField(b, f.name, f.v); err != nil {
				return err
			}
		}
		b.WriteString("}\n")
	}
	if err := b.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// batchState is a sample state's prompt and state fields, encoded.
type batchState struct{ prompt, state []byte }

// encodeBatchState encodes a sample state's prompt and state fields: the
// state as it is when it is JSON, else as a JSON string. The prompt is the
// chat the proposer was served (RenderChat).
func encodeBatchState(proposer *plan.Role, s string) (e batchState, err error) {
	state := json.RawMessage(s)
	if !json.Valid(state) {
		q, _ := json.Marshal(s)
		state = q
	}
	prompt, err := RenderChat(proposer, nil, state)
	if err != nil {
		return e, err
	}
	if e.prompt, err = json.Marshal(prompt); err != nil {
		return e, err
	}
	e.state, err = json.Marshal(state) // compacted, as a struct field is
	return e, err
}

// batchField appends name and v as encoding/json writes a struct field.
func batchField(b *bufio.Writer, name string, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.WriteString(name)
	b.Write(j)
	return nil
}
