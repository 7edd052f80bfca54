package compiler

import (
	"reflect"

	"github.com/assay-lang/assay/lang/spec"
)

// cloneSpec deep-copies a spec so a sweep variant (or the defaults pass) can
// change it without touching the caller's value.
func cloneSpec(s *spec.Spec) *spec.Spec { return spec.Clone(s) }

func deepCopy(v reflect.Value) reflect.Value { return spec.DeepCopy(v) }
