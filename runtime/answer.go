package runtime

import (
	"reflect"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// decodeAnswer sets out (a pointer to a response type of package payload)
// to a call's answer: an in-process LLM's Output when it is of that type,
// as it is, else Payload decoded. Decoding a simulated LLM's answers again
// was a sixth of a rehearsal's time.
func decodeAnswer(resp *plugins.CompleteResponse, out any) error {
	if resp.Output != nil {
		ov, pv := reflect.ValueOf(resp.Output), reflect.ValueOf(out)
		if pv.Kind() == reflect.Pointer && !pv.IsNil() && ov.Type() == pv.Type().Elem() {
			pv.Elem().Set(ov)
			return nil
		}
	}
	return payload.Decode(resp.Payload, out)
}
