package spec

import "reflect"

// Merge returns the spec that child, a spec with `extends`, means over base:
//
//   - an attribute the child sets wins; one it leaves unset is inherited;
//   - a map attribute (prices.gpu_hourly, plugin config) merges entry by
//     entry, the child's entries winning;
//   - a list attribute is replaced whole;
//   - a single block merges field by field, recursively;
//   - labelled blocks merge by label: a child `loop "policy" { steps = 40 }`
//     changes only the steps of the base's policy loop, and a new label adds
//     a block after the base's blocks of that kind.
//
// Merge walks Describe(), so a field added to the model merges without a
// change here. Every value keeps its Range, so a diagnostic about an
// inherited value points into the base file. Files lists the child's files
// first (the plan is named after the first), then the base's. The result has
// no Extends: it stands alone. Neither input is modified, and the result
// shares no block with them, so sweeps may set fields on it freely.
func Merge(base, child *Spec) *Spec {
	switch {
	case base == nil && child == nil:
		return nil
	case base == nil:
		base = &Spec{}
	case child == nil:
		child = &Spec{}
	}
	out := mergeBlock(reflect.ValueOf(base), reflect.ValueOf(child), Describe()).Interface().(*Spec)
	out.Extends = Val[string]{}
	out.Files = nil
	seen := map[string]bool{}
	for _, f := range append(append([]string(nil), child.Files...), base.Files...) {
		if !seen[f] {
			seen[f] = true
			out.Files = append(out.Files, f)
		}
	}
	return out
}

// mergeBlock merges two pointers to blocks of schema bs; either may be nil,
// not both. Fields outside the schema (Name, NameRange, Range, a variable's
// final Value) come from the child when it has the block: it is the latest
// word on them.
func mergeBlock(b, c reflect.Value, bs *BlockSchema) reflect.Value {
	out := NewBlock(bs)
	bn, cn := b.IsNil(), c.IsNil()
	if cn {
		out.Elem().Set(b.Elem())
	} else {
		out.Elem().Set(c.Elem())
	}
	for _, f := range bs.Fields {
		var bv, cv reflect.Value
		if !bn {
			bv = FieldValue(b.Elem(), f)
		}
		if !cn {
			cv = FieldValue(c.Elem(), f)
		}
		FieldValue(out.Elem(), f).Set(mergeField(bv, cv, f))
	}
	if !bn && !cn {
		// The label was first written in the base.
		if nr := out.Elem().FieldByName("NameRange"); nr.IsValid() {
			nr.Set(b.Elem().FieldByName("NameRange"))
		}
	}
	return out
}

// mergeField merges one field; bv or cv is the zero reflect.Value when that
// side has no enclosing block.
func mergeField(bv, cv reflect.Value, f *Field) reflect.Value {
	switch f.Kind {
	case Block:
		zero := reflect.Zero(reflect.PointerTo(f.Block.goType))
		if !bv.IsValid() {
			bv = zero
		}
		if !cv.IsValid() {
			cv = zero
		}
		if bv.IsNil() && cv.IsNil() {
			return zero
		}
		return mergeBlock(bv, cv, f.Block)
	case Blocks:
		return mergeBlocks(bv, cv, f.Block)
	}
	switch {
	case cv.IsValid() && isSet(cv):
		// A list (a sweep axis's values) is replaced whole; only a Val of
		// a map merges entry by entry.
		if bv.IsValid() && isSet(bv) && cv.Kind() == reflect.Struct && cv.FieldByName("V").Kind() == reflect.Map {
			return mergeMap(bv, cv)
		}
		return cv
	case bv.IsValid():
		return bv
	}
	return cv
}

// mergeBlocks merges labelled blocks by label: the base's blocks in their
// order, each merged with the child's first block of its label, then the
// child's other blocks in the child's order. A second child block of one
// label stays a second block, so the compiler still reports the duplicate.
func mergeBlocks(bv, cv reflect.Value, bs *BlockSchema) reflect.Value {
	ptr := reflect.PointerTo(bs.goType)
	out := reflect.MakeSlice(reflect.SliceOf(ptr), 0, 0)
	zero := reflect.Zero(ptr)
	first := map[string]int{}
	if cv.IsValid() {
		for j := cv.Len() - 1; j >= 0; j-- {
			first[label(cv.Index(j))] = j
		}
	}
	consumed := map[int]bool{}
	if bv.IsValid() {
		for i := 0; i < bv.Len(); i++ {
			c := zero
			if j, ok := first[label(bv.Index(i))]; ok && !consumed[j] {
				consumed[j] = true
				c = cv.Index(j)
			}
			out = reflect.Append(out, mergeBlock(bv.Index(i), c, bs))
		}
	}
	if cv.IsValid() {
		for j := 0; j < cv.Len(); j++ {
			if !consumed[j] {
				out = reflect.Append(out, mergeBlock(zero, cv.Index(j), bs))
			}
		}
	}
	if out.Len() == 0 {
		return reflect.Zero(out.Type())
	}
	return out
}

func label(p reflect.Value) string { return p.Elem().FieldByName("Name").String() }

// isSet reports whether an attribute value (Val, Ref or []Literal) is given.
func isSet(v reflect.Value) bool {
	if v.Kind() == reflect.Slice {
		return v.Len() > 0
	}
	return v.FieldByName("Set").Bool()
}

// mergeMap returns the child's Val with the base's entries under its own.
func mergeMap(bv, cv reflect.Value) reflect.Value {
	out := reflect.New(cv.Type()).Elem()
	out.Set(cv)
	bm, cm := bv.FieldByName("V"), cv.FieldByName("V")
	m := reflect.MakeMapWithSize(cm.Type(), bm.Len()+cm.Len())
	for _, k := range bm.MapKeys() {
		m.SetMapIndex(k, bm.MapIndex(k))
	}
	for _, k := range cm.MapKeys() {
		m.SetMapIndex(k, cm.MapIndex(k))
	}
	out.FieldByName("V").Set(m)
	return out
}
