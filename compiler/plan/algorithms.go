package plan

// Update is the policy update of an RL algorithm: the hyperparameters a
// loop's Loop carries and the runtime sends in each policy update.
type Update struct {
	// ClipLow and ClipHigh bound pi/pi_old to [1 - ClipLow, 1 + ClipHigh].
	ClipLow, ClipHigh float64
	// KLCoef is beta of the KL penalty toward the reference policy.
	KLCoef float64
	// TokenLevel averages the loss over tokens instead of samples.
	TokenLevel bool
	// Epochs is the gradient passes over one update's samples.
	Epochs int
	// WeightDecay is the optimiser's decoupled weight decay.
	WeightDecay float64
}

// Algorithms gives each loop algorithm's update as its paper defines it.
// GRPO (DeepSeekMath): symmetric clip 0.2, KL penalty beta = 0.04 toward
// the reference policy, a per-sample mean loss. DAPO: clip-higher (0.2
// low, 0.28 high), no KL term, a token-level loss; its dynamic sampling is
// the loop's zero_variance = "drop", which the dapo preset sets. Both take
// 4 passes over a batch, which is what lets the ratio leave 1 so that
// clipping can act (the papers reach the same by splitting a rollout into
// mini-batches). Neither paper sets a weight decay: 0.
var Algorithms = map[string]Update{
	"grpo": {ClipLow: 0.2, ClipHigh: 0.2, KLCoef: 0.04, Epochs: 4},
	"dapo": {ClipLow: 0.2, ClipHigh: 0.28, TokenLevel: true, Epochs: 4},
}
