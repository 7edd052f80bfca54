package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"

	"github.com/assay-lang/assay/runtime/compare"
)

// The CSV's columns carry the JSON field names, and each holds what its
// name says: avg_k is the k of Avg@k, avg_at_k the figure.
func TestCompareCSVColumns(t *testing.T) {
	avg, best := 0.25, 0.75
	row := &compare.Row{ID: "r1", Plan: "p", Variant: "default", State: "finished", AvgAt: 4, Avg: &avg, BestAt: 8, Best: &best}
	var b bytes.Buffer
	if err := writeCompareCSV(&b, []*compare.Row{row}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("csv: %v, %d records", err, len(recs))
	}
	js, _ := json.Marshal(row)
	var fields map[string]any
	json.Unmarshal(js, &fields)
	got := map[string]string{}
	for i, h := range recs[0] {
		got[h] = recs[1][i]
	}
	for col, want := range map[string]string{"avg_k": "4", "avg_at_k": "0.25", "best_k": "8", "best_at_k": "0.75"} {
		if got[col] != want {
			t.Errorf("column %s = %q, want %q", col, got[col], want)
		}
		if _, ok := fields[col]; !ok {
			t.Errorf("column %s is not a JSON field of the row: %s", col, js)
		}
	}
}
