package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	for in, want := range map[string][]int64{
		"1-5": {1, 2, 3, 4, 5}, "7": {7}, "1,3,7": {1, 3, 7}, "1-3,10": {1, 2, 3, 10}, " 2 - 3 ": {2, 3}, "0": {0},
		"9223372036854775807": {9223372036854775807}, "9223372036854775806-9223372036854775807": {9223372036854775806, 9223372036854775807},
	} {
		got, err := parseSeeds(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"": "is not a seed", "3-1": "runs backwards", "1,,2": "is not a seed", "-1": "is not a seed", "a": "is not a seed",
		"1,1": "twice", "1-3,2": "twice", "0-100": "more than 100", "1-9223372036854775807": "more than 100",
		"99999999999999999999": "is not a seed",
	} {
		if _, err := parseSeeds(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", in, err, msg)
		}
	}
}

// FuzzParseSeeds: any --seeds text gives an error or at most 100 distinct
// seeds, none negative; never a panic.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1-5", "1,3,7", "1-3,10", "3-1", "", ",", "-", "1-", "0-99", "9223372036854775807", "1-9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSeeds(s)
		if err != nil {
			return
		}
		seen := map[int64]bool{}
		if len(got) == 0 || len(got) > maxSeeds {
			t.Fatalf("%q: %d seeds", s, len(got))
		}
		for _, n := range got {
			if n < 0 || seen[n] {
				t.Fatalf("%q: %v", s, got)
			}
			seen[n] = true
		}
	})
}
