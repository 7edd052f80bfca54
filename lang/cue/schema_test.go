package cue

import (
	"flag"
	"os"
	"testing"

	cueschema "github.com/assay-lang/assay/stdlib/cue"
)

var update = flag.Bool("update", false, "rewrite generated files and golden files")

const schemaPath = "../../stdlib/cue/assay.cue"

// TestSchemaUpToDate fails when stdlib/cue/assay.cue no longer matches
// spec.Describe(); -update regenerates it.
func TestSchemaUpToDate(t *testing.T) {
	want := GenerateSchema()
	if *update {
		if err := os.WriteFile(schemaPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) || string(cueschema.Schema) != string(want) {
		t.Fatalf("%s is stale; run: go test ./lang/cue -run TestSchemaUpToDate -update", schemaPath)
	}
}
