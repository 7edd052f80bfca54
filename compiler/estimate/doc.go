// Package estimate prices a compiled plan (package compiler/plan): real runs,
// GPU-hours by GPU type, LLM calls, tokens and dollars by role, policy steps
// by loop, dollars and wall-clock hours, each as low / expected / high where
// an assumption (a critic's routed fraction) can vary. It checks the result
// against the budget's hard caps and renders it as a table, JSON or Markdown.
//
// The estimator reads only the plan, never the spec: the plan already holds
// every call count, so the figures `assay estimate` prints are the calls the
// runtime (package runtime), the next phase, will make.
package estimate
