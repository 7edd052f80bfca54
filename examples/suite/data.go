package main

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Dataset is one task's data, split into training and validation rows.
// Every dataset is generated from a fixed seed of its own, so a task's
// data never changes with the training seed.
type Dataset struct {
	Classify     bool // labels are 0 or 1; else real targets
	TrainX, ValX [][]float64
	TrainY, ValY []float64
}

// generators are the tasks: two classification, two regression.
var generators = map[string]func(*rand.Rand) ([][]float64, []float64, bool){
	"spirals":  spirals,
	"moons":    moons,
	"sine":     sine,
	"friedman": friedman,
}

// TaskNames lists the tasks, sorted.
func TaskNames() []string {
	var out []string
	for n := range generators {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Load generates task name's data: 600 rows, the last quarter held out for
// validation.
func Load(name string) (*Dataset, bool) {
	gen, ok := generators[name]
	if !ok {
		return nil, false
	}
	seed := uint64(0)
	for _, c := range name {
		seed = seed*131 + uint64(c)
	}
	X, Y, classify := gen(rand.New(rand.NewPCG(seed, 7)))
	cut := len(X) * 3 / 4
	return &Dataset{Classify: classify, TrainX: X[:cut], TrainY: Y[:cut], ValX: X[cut:], ValY: Y[cut:]}, true
}

const rows = 600

// spirals: two interleaved spirals, one per class, with noise.
func spirals(rng *rand.Rand) ([][]float64, []float64, bool) {
	X, Y := make([][]float64, rows), make([]float64, rows)
	for i := range rows {
		c := i % 2
		t := 0.25 + 2.75*rng.Float64() // radius and angle grow together
		a := 2.2*t + math.Pi*float64(c)
		X[i] = []float64{t*math.Cos(a)/2 + rng.NormFloat64()*0.06, t*math.Sin(a)/2 + rng.NormFloat64()*0.06}
		Y[i] = float64(c)
	}
	return X, Y, true
}

// moons: two interleaving half circles, with noise.
func moons(rng *rand.Rand) ([][]float64, []float64, bool) {
	X, Y := make([][]float64, rows), make([]float64, rows)
	for i := range rows {
		c := i % 2
		a := math.Pi * rng.Float64()
		x, y := math.Cos(a), math.Sin(a)
		if c == 1 {
			x, y = 1-x, 0.5-y
		}
		X[i] = []float64{x - 0.5 + rng.NormFloat64()*0.15, y - 0.25 + rng.NormFloat64()*0.15}
		Y[i] = float64(c)
	}
	return X, Y, true
}

// sine: y = sin(3x) + noise on [-2, 2].
func sine(rng *rand.Rand) ([][]float64, []float64, bool) {
	X, Y := make([][]float64, rows), make([]float64, rows)
	for i := range rows {
		x := -2 + 4*rng.Float64()
		X[i] = []float64{x}
		Y[i] = math.Sin(3*x) + rng.NormFloat64()*0.1
	}
	return X, Y, false
}

// friedman: Friedman's first regression problem (5 informative inputs of
// 7), its target divided by 10, inputs centred.
func friedman(rng *rand.Rand) ([][]float64, []float64, bool) {
	X, Y := make([][]float64, rows), make([]float64, rows)
	for i := range rows {
		x := make([]float64, 7)
		for k := range x {
			x[k] = rng.Float64()
		}
		y := 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4] + rng.NormFloat64()
		for k := range x {
			x[k] -= 0.5
		}
		X[i], Y[i] = x, (y-14)/10
	}
	return X, Y, false
}
