package compiler

import (
	"regexp"
	"strings"
	"testing"

	"github.com/assay-lang/assay/stdlib"
)

// A GPU type that differs from a priced one only in case is offered that
// one ("h100" -> "H100", not "A100"); a price in a hint comes from a
// preset price table, named, and otherwise the hint quotes no number.
func TestPriceHint(t *testing.T) {
	preset, ok := stdlib.PricePreset("cloud-2026")
	if !ok {
		t.Fatal("no cloud-2026 preset")
	}
	known := sortedKeys(preset.GPU.V)
	if got := priceHint("h100", known, "a real run"); !strings.HasPrefix(got, `did you mean "H100"?`) {
		t.Errorf("h100 among %v: %q", known, got)
	}
	got := priceHint("h100", nil, "a real run")
	if !strings.Contains(got, `write gpu = "H100", which the "cloud-2026" price preset prices at $6.98`) {
		t.Errorf("h100 with no prices: %q", got)
	}
	got = priceHint("H100", []string{"B200"}, "an update")
	if !strings.Contains(got, `the "cloud-2026" price preset prices H100 at $6.98 per GPU-hour`) || strings.Contains(got, "B200") {
		t.Errorf("H100 beside B200: %q", got)
	}
	money := regexp.MustCompile(`\$[1-9]|\$0\.|= [0-9]`)
	for _, gpu := range []string{"TPUv9", "B20"} {
		got := priceHint(gpu, []string{"B200"}, "a real run")
		if money.MatchString(got) {
			t.Errorf("%s: the hint quotes a price no table gives: %q", gpu, got)
		}
		if !strings.Contains(got, gpu+" = DOLLARS_PER_GPU_HOUR") {
			t.Errorf("%s: %q", gpu, got)
		}
	}
}
