package textdiff

import (
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insert", "a\nc\n", "a\nb\nc\n", "--- a\n+++ b\n@@ -1,2 +1,3 @@\n a\n+b\n c\n"},
		{"delete all", "a\n", "", "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
		{"from empty", "", "a\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+a\n"},
		{"no final newline", "a", "a\n", "--- a\n+++ b\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{
			"two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			"1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\nY\n",
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+Y\n",
		},
		{
			"merged hunk",
			"1\n2\n3\n4\n5\n6\n7\n",
			"1\nX\n3\n4\n5\n6\nY\n",
			"--- a\n+++ b\n@@ -1,7 +1,7 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n-7\n+Y\n",
		},
	}
	for _, tc := range tests {
		if got := Unified("a", "b", tc.a, tc.b); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

func TestLargeFallsBack(t *testing.T) {
	a := strings.Repeat("a\n", 5000)
	b := strings.Repeat("b\n", 5000)
	got := Unified("a", "b", a, b)
	if strings.Count(got, "\n-a") != 5000 || strings.Count(got, "\n+b") != 5000 {
		t.Errorf("fallback diff is wrong: %d bytes", len(got))
	}
}
