package main

import (
	"fmt"
	"math"
)

// Predictor is a trained model: a logit for a classification task, the
// prediction for a regression task.
type Predictor interface {
	Predict(x []float64) float64
}

// Evaluate is the task's metric: p's mean loss on ds's validation rows,
// binary cross-entropy of the logit for classification, squared error for
// regression.
func Evaluate(p Predictor, ds *Dataset) (float64, error) {
	var sum float64
	for i, x := range ds.ValX {
		out := p.Predict(x)
		if ds.Classify {
			// log(1 + e^-z) for the true class, computed stably.
			z := out
			if ds.ValY[i] < 0.5 {
				z = -out
			}
			sum += math.Max(-z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
		} else {
			e := out - ds.ValY[i]
			sum += e * e
		}
	}
	loss := sum / float64(len(ds.ValX))
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return 0, fmt.Errorf("the validation loss is %v", loss)
	}
	return loss, nil
}
