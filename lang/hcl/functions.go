package hcl

import (
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctystd "github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/assay-lang/assay/stdlib"
)

var (
	funcsOnce sync.Once
	funcs     map[string]function.Function
)

// functions returns every function a spec may call: the go-cty standard ones
// that make sense in a spec, plus Assay's stdlib.Functions. The same table
// serves every load; cty functions are safe to share.
func functions() map[string]function.Function {
	funcsOnce.Do(func() {
		funcs = map[string]function.Function{
			"abs":        ctystd.AbsoluteFunc,
			"ceil":       ctystd.CeilFunc,
			"floor":      ctystd.FloorFunc,
			"max":        ctystd.MaxFunc,
			"min":        ctystd.MinFunc,
			"pow":        ctystd.PowFunc,
			"log":        ctystd.LogFunc,
			"signum":     ctystd.SignumFunc,
			"parseint":   ctystd.ParseIntFunc,
			"concat":     ctystd.ConcatFunc,
			"length":     ctystd.LengthFunc,
			"range":      ctystd.RangeFunc,
			"element":    ctystd.ElementFunc,
			"slice":      ctystd.SliceFunc,
			"reverse":    ctystd.ReverseListFunc,
			"sort":       ctystd.SortFunc,
			"distinct":   ctystd.DistinctFunc,
			"flatten":    ctystd.FlattenFunc,
			"contains":   ctystd.ContainsFunc,
			"keys":       ctystd.KeysFunc,
			"values":     ctystd.ValuesFunc,
			"lookup":     ctystd.LookupFunc,
			"merge":      ctystd.MergeFunc,
			"zipmap":     ctystd.ZipmapFunc,
			"coalesce":   ctystd.CoalesceFunc,
			"format":     bounded(ctystd.FormatFunc, checkFormat),
			"formatlist": bounded(ctystd.FormatListFunc, checkFormat),
			"join":       bounded(ctystd.JoinFunc, checkJoin),
			"split":      ctystd.SplitFunc,
			"replace":    bounded(ctystd.ReplaceFunc, checkReplace),
			"upper":      ctystd.UpperFunc,
			"lower":      ctystd.LowerFunc,
			"title":      ctystd.TitleFunc,
			"trimspace":  ctystd.TrimSpaceFunc,
			"substr":     ctystd.SubstrFunc,
			"strlen":     ctystd.StrlenFunc,
		}
		for _, f := range stdlib.Functions {
			funcs[f.Name] = wrap(f)
		}
	})
	return funcs
}

func ctyType(t string) cty.Type {
	switch t {
	case "string":
		return cty.String
	case "list(number)":
		return cty.List(cty.Number)
	}
	return cty.Number
}

// wrap turns a stdlib function into a cty function. Errors become argument
// errors, which HCL reports at the call with the function's own words.
func wrap(f stdlib.Function) function.Function {
	params := make([]function.Parameter, len(f.Params))
	for i, p := range f.Params {
		params[i] = function.Parameter{Name: p.Name, Type: ctyType(p.Type)}
	}
	ret := ctyType(f.Result)
	return function.New(&function.Spec{
		Description: f.Doc,
		Params:      params,
		Type:        function.StaticReturnType(ret),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			in := make([]any, len(args))
			for i, a := range args {
				if f.Params[i].Type == "string" {
					in[i] = a.AsString()
				} else {
					in[i] = bigFloat(a)
				}
			}
			out, err := f.Call(in)
			if err != nil {
				return cty.UnknownVal(ret), function.NewArgError(0, err)
			}
			switch x := out.(type) {
			case float64:
				return cty.NumberFloatVal(x), nil
			case []float64:
				if len(x) == 0 {
					return cty.ListValEmpty(cty.Number), nil
				}
				l := make([]cty.Value, len(x))
				for i, e := range x {
					l[i] = cty.NumberFloatVal(e)
				}
				return cty.ListVal(l), nil
			}
			panic("hcl: stdlib function " + f.Name + " returned an unsupported type")
		},
	})
}
