// Package tree holds the one type of a checked formula's tree as plain
// data, Node, which both package lang/formula (which builds and evaluates
// trees) and package compiler/plan (which carries them to the runtime)
// use. It is a leaf: it imports nothing, so the plan stays plain data.
package tree
