// Package model is the tinylm trainer: it really trains a tiny
// character-level language model on the CPU and reports validation bits per
// byte, so an Assay experiment runs end to end on a laptop with no GPU.
//
// The network is an MLP over a window of embedded characters: the
// embeddings of the last `context` bytes are concatenated and pass through
// `depth` dense layers of `width` units (tanh, relu or gelu) and a dense
// softmax output over the corpus's bytes. Backpropagation is written by
// hand (net.go) and checked against finite differences in the tests.
// Optimisers are SGD, momentum (0.9) and Adam (0.9, 0.999) with decoupled
// weight decay; the learning rate has an optional linear warm-up and a
// constant or cosine schedule.
//
// A proposal edits the knobs listed by Knobs (learning_rate, optimizer,
// lr_schedule, warmup, weight_decay, batch_size, context, width, depth,
// embed, activation, init_scale), each with a mechanism direction, a
// default and discrete values. An unknown knob, a value off the list or a
// diverging run (NaN, or a validation loss worse than twice the uniform
// guess) makes the run infeasible with the reason.
//
// Corpora (corpus.go):
//   - "grammar" (the default): 64 KiB generated from a small probabilistic
//     English grammar with number agreement, documented on GrammarText, by a
//     fixed generator and seed (GrammarSeed), identical in every build.
//   - "opticks": a 32 KB public-domain excerpt of Newton's Opticks (see
//     corpus/PROVENANCE.md).
//
// The last tenth of a corpus is the validation split.
//
// Runs are deterministic for a seed: a fixed step count (not wall time), a
// batch split into a fixed number of shards (Shards, not the CPU count)
// whose gradients are summed in order, a self-contained random generator,
// and portable Exp/Log/Tanh (mathx.go) instead of the standard library's
// CPU-dependent assembly. The same binary gives bit-identical results on any
// machine.
//
// Trainer adapts all this to plugins.Trainer (Start returns at once and
// trains in a goroutine keyed by RunID; a run's result is also saved in its
// work directory, so a later process re-attaches to a run that ended
// instead of training it again); the plugin binary in the parent
// directory serves it over the plugin protocol.
package model
