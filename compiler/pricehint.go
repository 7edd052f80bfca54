package compiler

import (
	"fmt"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/stdlib"
)

// priceHint is the detail of an E_PRICE_MISSING for GPU type gpu, given
// the GPU types the spec prices (known) and what it is (an environment's
// real run, an update). A name that differs from a priced one only in
// case is suggested first (GPU types match exactly, so "h100" is not
// "H100"); then a GPU type a preset price table of the standard library
// prices, quoting that price with the preset as its source; then a near
// typo. Otherwise the hint asks for the user's own price, with no number.
func priceHint(gpu string, known []string, what string) string {
	for _, k := range known {
		if strings.EqualFold(k, gpu) {
			return fmt.Sprintf("did you mean %q? GPU types are matched exactly, case included.", k)
		}
	}
	for _, name := range stdlib.Presets(stdlib.KindPrices) {
		p, ok := stdlib.PricePreset(name)
		if !ok {
			continue
		}
		for k, usd := range p.GPU.V {
			if strings.EqualFold(k, gpu) {
				// A GPU a preset prices is no typo of a priced one.
				if k != gpu {
					return fmt.Sprintf("write gpu = %q, which the %q price preset prices at $%.2f per GPU-hour (prices { preset = %q }), or price %q yourself: prices { gpu_hourly = { %s = DOLLARS_PER_GPU_HOUR } }; %s is never priced at $0",
						k, name, usd, name, gpu, gpu, what)
				}
				return fmt.Sprintf("the %q price preset prices %s at $%.2f per GPU-hour: add prices { preset = %q }, or give your own price: prices { gpu_hourly = { %s = DOLLARS_PER_GPU_HOUR } }; %s is never priced at $0",
					name, gpu, usd, name, gpu, what)
			}
		}
	}
	if h := diag.DidYouMean(gpu, known); h != "" {
		return h + fmt.Sprintf(" Or add it: prices { gpu_hourly = { %s = DOLLARS_PER_GPU_HOUR } } with what one %s GPU-hour costs you; %s is never priced at $0", gpu, gpu, what)
	}
	return fmt.Sprintf("add prices { gpu_hourly = { %s = DOLLARS_PER_GPU_HOUR } } with what one %s GPU-hour costs you; %s is never priced at $0", gpu, gpu, what)
}
