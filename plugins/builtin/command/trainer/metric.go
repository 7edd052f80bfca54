package trainer

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// metricFromJSON reads field (a path such as "eval.val_bpb", "history[2].loss"
// or "history.2.loss") from the JSON file at path.
func metricFromJSON(path, field string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, fmt.Errorf("metric file %s was not written by the command", path)
		}
		return 0, fmt.Errorf("metric file: %v", err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return 0, fmt.Errorf("metric file %s is not JSON: %v", path, err)
	}
	v, err := lookup(doc, field)
	if err != nil {
		return 0, fmt.Errorf("metric file %s: %v", path, err)
	}
	return toFloat(v, field)
}

func splitPath(field string) []string {
	field = strings.ReplaceAll(field, "[", ".")
	field = strings.ReplaceAll(field, "]", "")
	var parts []string
	for _, p := range strings.Split(field, ".") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

func lookup(doc any, field string) (any, error) {
	cur := doc
	seen := "$"
	for _, p := range splitPath(field) {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[p]
			if !ok {
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				return nil, fmt.Errorf("no field %q in %s (it has: %s)", p, seen, strings.Join(keys, ", "))
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("%s is a list of %d; %q is not an index into it", seen, len(x), p)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("%s is a %T, not an object or list, so it has no %q", seen, cur, p)
		}
		seen += "." + p
	}
	return cur, nil
}

func toFloat(v any, what string) (float64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, fmt.Errorf("%s is %q, not a number", what, x)
		}
	default:
		return 0, fmt.Errorf("%s is a %T, not a number", what, v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s is %v", what, f)
	}
	return f, nil
}

// metricFromStdout takes the last match of the config's regex in stdout:
// training logs print the metric as it improves, and the last line counts.
func metricFromStdout(c *Config, stdout string) (float64, error) {
	ms := c.MetricRegex.FindAllStringSubmatch(stdout, -1)
	if len(ms) == 0 {
		return 0, fmt.Errorf("metric_regex %q matched nothing in stdout", c.MetricRegex.String())
	}
	m := ms[len(ms)-1]
	g := 1
	if i := c.MetricRegex.SubexpIndex("metric"); i > 0 {
		g = i
	}
	return toFloat(m[g], "metric_regex's match "+strconv.Quote(m[0]))
}
