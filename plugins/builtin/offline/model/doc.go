// Package model is the offline LLM: an embedded stand-in for every model
// role, so an Assay experiment runs end to end with no network. It behaves
// like a model rather than returning canned answers: it is noisy, its
// answers depend on the seed and the temperature, and it improves with
// training (the proposer) or with records in its context (rwm, critic).
//
//   - proposer (propose.go): a softmax policy over typed edits (knob, value)
//     of the trainer's knobs. An edit's score is an untrained prior (small
//     moves from the current value are likelier) plus learnt weights on
//     three features: the edit, the edit within the task, and its
//     mechanism direction. Real records in the request's prompt
//     (ProposeRequest.Records, an evaluation's in-context arm) shift each
//     edit's prior by the weighted mean of whether the records that made
//     it gained or lost (iclBonus). Proposals are the parent's setup plus one
//     sampled edit, at the request's temperature and seed. Update ascends
//     the clipped surrogate objective GRPO and DAPO share, with the
//     request's hyperparameters: Epochs passes of the learning rate times
//     the weighted sum over samples of advantage x pi/pi_old x grad log
//     pi(edit | state), a sample dropping out once its ratio passes
//     [1 - ClipLow, 1 + ClipHigh], minus KLCoef times GRPO's KL estimator
//     toward the untrained policy; samples weigh the same or, with
//     TokenLevel, by their tokens. It returns the policy as JSON (Policy),
//     which later requests carry in State. Each plugins.Sample.State must
//     be the payload.ProposeRequest the proposal was sampled from. In
//     source mode (ProposeRequest.Source) the edits are of the program
//     shown: each named numeric setting of its editable files (settings.go:
//     NAME = v, JSON, YAML, TOML, Python, Go constants, vars and
//     struct-literal fields) set a quarter, half, twice or four times its
//     value, the mechanism read off the setting's name, the idea's text
//     naming the setting and the new value.
//   - rwm (predict.go): kernel regression of gain over the records in
//     context, by edit overlap and task, shrunk towards a fixed prior, with
//     noise that shrinks as relevant records accumulate.
//   - critic (critic.go): the rwm's estimate of child minus parent in
//     units of the task's gain spread, plus sampled noise, read off as a
//     3-way or 5-way ladder label; k votes disagree on close calls. A
//     critic training's updates (critic_learn.go) teach it a bias per
//     mechanism and a weight per feature of the change (the setting the
//     child makes, the way it moves a knob), which carry across tasks.
//   - summarizer and builder/implementer (build.go): a neutral description
//     of the edits; edits checked against the knobs (or read from the idea's
//     text), numbers snapped to listed values, and an infeasible build at a
//     small rate that grows with the number of edits. In source mode
//     (patch.go, summary.go) the builder writes a unified diff setting what
//     the idea names (the setting whose name holds the idea's, to the value
//     it gives), or declares the idea infeasible with the reason, and the
//     summarizer describes the patch: which setting of which file changed
//     from what to what.
//
// Model serves all of this as plugins.LLM; usage counts about four bytes a
// token, at most the request's bounds (the role's high tokens in and out).
// The plugin binary in the parent directory serves Model.
package model
