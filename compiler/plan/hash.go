package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// meaningHash is "sha256:" and the SHA-256 of p's JSON without source
// ranges and what a run still needs (missing); p.Hash is part of the
// JSON, so callers clear it first.
func meaningHash(p *Plan) string {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // a plan is plain data; failing to marshal is a bug
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		panic(err)
	}
	stripSources(tree)
	canon, _ := json.Marshal(tree) // map keys are sorted by encoding/json
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func stripSources(x any) {
	switch v := x.(type) {
	case map[string]any:
		// Only source ranges (objects) go; a plugin's "source" is its
		// executable, which is meaning.
		if _, ok := v["source"].(map[string]any); ok {
			delete(v, "source")
		}
		// What a run still needs (Missing) is not the experiment: it
		// names how a spec says it (a variable, a manifest's line), and
		// supplying it changes the fields it stands for.
		if _, ok := v["missing"].([]any); ok {
			delete(v, "missing")
		}
		for _, e := range v {
			stripSources(e)
		}
	case []any:
		for _, e := range v {
			stripSources(e)
		}
	}
}
