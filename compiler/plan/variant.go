package plan

import (
	"errors"
	"fmt"
	"strings"
)

// VariantIndex is the index of the variant named name, the first when name
// is empty; the error names the variants there are.
func (p *Plan) VariantIndex(name string) (int, error) {
	if p == nil || len(p.Variants) == 0 {
		return 0, errors.New("the plan has no variants")
	}
	if name == "" {
		return 0, nil
	}
	names := make([]string, 0, len(p.Variants))
	for i, v := range p.Variants {
		if v.Name == name {
			return i, nil
		}
		names = append(names, v.Name)
	}
	return 0, fmt.Errorf("the plan has no variant %q (it has %s)", name, strings.Join(names, ", "))
}

// Variant is the variant named name, the first when name is empty.
func (p *Plan) Variant(name string) (*Variant, error) {
	i, err := p.VariantIndex(name)
	if err != nil {
		return nil, err
	}
	return p.Variants[i], nil
}

// PhaseOf is v's first phase of kind kind, nil when it has none.
func (v *Variant) PhaseOf(kind string) *Phase {
	for _, ph := range v.Phases {
		if ph.Kind == kind {
			return ph
		}
	}
	return nil
}
