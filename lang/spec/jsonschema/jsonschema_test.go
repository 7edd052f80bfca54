package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// validate is a structural JSON Schema check covering the keywords Build
// uses: $ref, type, properties, additionalProperties, items, enum, anyOf
// and pattern.
func validate(root, s Schema, x any, at string) error {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		d, ok := root["$defs"].(Schema)[name].(Schema)
		if !ok {
			return fmt.Errorf("%s: dangling $ref %s", at, ref)
		}
		return validate(root, d, x, at)
	}
	if any, ok := s["anyOf"].([]any); ok {
		var errs []string
		for _, alt := range any {
			if err := validate(root, alt.(Schema), x, at); err == nil {
				return nil
			} else {
				errs = append(errs, err.Error())
			}
		}
		return fmt.Errorf("%s: no alternative matches: %s", at, strings.Join(errs, "; "))
	}
	if t, ok := s["type"]; ok {
		types, isList := t.([]any)
		if !isList {
			types = []any{t}
		}
		matched := false
		for _, ty := range types {
			if typeOK(ty.(string), x) {
				matched = true
			}
		}
		if !matched {
			return fmt.Errorf("%s: %v is not of type %v", at, x, t)
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, v := range e {
			if v == x {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s: %v not in enum %v", at, x, e)
		}
	}
	if p, ok := s["pattern"].(string); ok {
		if !regexp.MustCompile(p).MatchString(x.(string)) {
			return fmt.Errorf("%s: %q does not match %s", at, x, p)
		}
	}
	if obj, ok := x.(map[string]any); ok {
		props, _ := s["properties"].(Schema)
		for k, v := range obj {
			if ps, ok := props[k].(Schema); ok {
				if err := validate(root, ps, v, at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: property %q is not allowed", at, k)
				}
			case Schema:
				if err := validate(root, ap, v, at+"."+k); err != nil {
					return err
				}
			}
		}
	}
	if l, ok := x.([]any); ok {
		if items, ok := s["items"].(Schema); ok {
			for i, v := range l {
				if err := validate(root, items, v, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func typeOK(t string, x any) bool {
	switch t {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "number":
		_, ok := x.(float64)
		return ok
	case "integer":
		f, ok := x.(float64)
		return ok && f == float64(int64(f))
	}
	return false
}

// roundTrip passes the schema through JSON, so the test sees what users get.
func roundTrip(t *testing.T) Schema {
	var s Schema
	if err := json.Unmarshal(Generate(), &s); err != nil {
		t.Fatal(err)
	}
	return fix(s).(Schema)
}

// fix turns decoded map[string]any into Schema recursively (they are the
// same type; this only walks lists).
func fix(x any) any {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = fix(e)
		}
		return Schema(v)
	case []any:
		for i, e := range v {
			v[i] = fix(e)
		}
	}
	return x
}

// Every spec in specs/, read by the real decoders, validates.
func TestSpecsValidate(t *testing.T) {
	root := roundTrip(t)
	if root["$schema"] != Draft {
		t.Fatalf("$schema = %v", root["$schema"])
	}
	paths, _ := filepath.Glob("../../../specs/*.hcl")
	for _, ext := range []string{"cue", "json", "yaml"} {
		more, _ := filepath.Glob("../../../specs/*." + ext)
		paths = append(paths, more...)
	}
	if len(paths) < 2 {
		t.Fatal("no specs found")
	}
	for _, p := range paths {
		s, _, ds := load.Load(p, load.Options{})
		if ds.HasErrors() {
			t.Fatalf("%s: %s", p, ds.Format(0))
		}
		b, _ := json.Marshal(spec.Tree(s))
		var tree any
		json.Unmarshal(b, &tree)
		if err := validate(root, root, tree, filepath.Base(p)); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// A spec written as JSON validates against the schema as the file it is,
// not only as the tree the decoders make of it: the schema's claim that
// editors can check JSON and YAML specs with it holds.
func TestJSONSpecFilesValidate(t *testing.T) {
	root := roundTrip(t)
	paths, _ := filepath.Glob("../../../specs/*.json")
	if len(paths) == 0 {
		t.Fatal("no JSON specs in specs/")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := validate(root, root, doc, filepath.Base(p)); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// The validator can fail: wrong types, unknown fields and bad enums.
func TestInvalidTreesFail(t *testing.T) {
	root := roundTrip(t)
	bad := []string{
		`{"nme": "x"}`,
		`{"seed": 1.5}`,
		`{"loop": {"rl": {"kind": "genetic"}}}`,
		`{"loop": {"rl": {"reward": "reward"}}}`,
		`{"calibration": {"after_steps": ["16"]}}`,
		`{"environment": {"e": {"run_cost": {"gpus": "8"}}}}`,
	}
	for _, in := range bad {
		var x any
		json.Unmarshal([]byte(in), &x)
		if err := validate(root, root, x, "spec"); err == nil {
			t.Errorf("%s validated", in)
		}
	}
}

// Every field the decoders accept (spec.Describe) is in the schema, and
// the schema has no field they do not accept.
func TestSchemaCoversModel(t *testing.T) {
	root := roundTrip(t)
	var walk func(bs *spec.BlockSchema, s Schema, at string)
	walk = func(bs *spec.BlockSchema, s Schema, at string) {
		if ref, ok := s["$ref"].(string); ok {
			s = root["$defs"].(Schema)[strings.TrimPrefix(ref, "#/$defs/")].(Schema)
		}
		props := s["properties"].(Schema)
		if len(props) != len(bs.Fields) {
			t.Errorf("%s: schema has %d properties, model %d", at, len(props), len(bs.Fields))
		}
		for _, f := range bs.Fields {
			p, ok := props[f.Name].(Schema)
			if !ok {
				t.Errorf("%s.%s missing from the schema", at, f.Name)
				continue
			}
			switch f.Kind {
			case spec.Block:
				walk(f.Block, p, at+"."+f.Name)
			case spec.Blocks:
				walk(f.Block, p["additionalProperties"].(Schema), at+"."+f.Name+".*")
			}
		}
	}
	walk(spec.Describe(), root, "spec")
}
