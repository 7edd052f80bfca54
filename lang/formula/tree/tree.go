package tree

// Node is one operation of a checked formula as plain data: what a
// compiled plan carries, so the runtime evaluates the tree the compiler
// parsed and type-checked instead of parsing the text again. Op names the
// operation ("num", "var", "call", "add", ...: see package lang/formula);
// Start and End are byte offsets of the node's text in the formula source,
// for evaluation errors.
type Node struct {
	Op    string  `json:"op"`
	Num   float64 `json:"num,omitempty"`
	Name  string  `json:"name,omitempty"`
	Args  []*Node `json:"args,omitempty"`
	Start int     `json:"start"`
	End   int     `json:"end"`
}
