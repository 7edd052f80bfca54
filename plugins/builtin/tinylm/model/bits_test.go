package model

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"
)

// The figures tinylm reports are pinned bit for bit (compiler goldens,
// script tests, docs/reproducing.md), so a change to the training code
// must not move a single bit. These hashes cover every float of a run's
// result and every final weight for configurations that reach each
// activation, optimiser, schedule and the decay, saturation and divergence
// paths; they were computed by the implementation before its speed-ups.

// bitsHash feeds exact bits into an FNV-1a hash.
type bitsHash struct{ b []byte }

func (h *bitsHash) f(xs ...float64) {
	for _, x := range xs {
		h.b = binary.LittleEndian.AppendUint64(h.b, math.Float64bits(x))
	}
}

func (h *bitsHash) s(s string) { h.b = append(append(h.b, s...), 0) }

func (h *bitsHash) sum() uint64 {
	f := fnv.New64a()
	f.Write(h.b)
	return f.Sum64()
}

func TestTrainBitsPinned(t *testing.T) {
	for _, tc := range []struct {
		name   string
		corpus string
		edits  map[string]string
		steps  int
		seed   uint64
		evalN  int
		want   uint64
	}{
		{"default", CorpusGrammar, nil, 200, 1, 0, 0x1a9ed9492a490a9b},
		{"gelu-momentum-cosine", CorpusOpticks, map[string]string{"activation": "gelu", "depth": "2", "optimizer": "momentum",
			"lr_schedule": "cosine", "warmup": "50", "learning_rate": "0.03", "width": "16"}, 150, 2, 0, 0xc96762cb681c121},
		{"relu-sgd-decay", CorpusGrammar, map[string]string{"activation": "relu", "optimizer": "sgd", "weight_decay": "0.01",
			"batch_size": "8", "context": "1", "embed": "2", "width": "8", "init_scale": "3", "learning_rate": "0.1"}, 300, 3, 500, 0x99d09976d8edc3fd},
		{"tanh-saturated-deep", CorpusGrammar, map[string]string{"depth": "3", "width": "16", "context": "8", "embed": "4",
			"batch_size": "16", "init_scale": "10", "learning_rate": "0.03", "weight_decay": "0.001"}, 150, 4, 100, 0x93181b3f68d00b97},
		{"gelu-small-init", CorpusOpticks, map[string]string{"activation": "gelu", "init_scale": "0.1", "embed": "12",
			"context": "2", "width": "8", "weight_decay": "0.1", "lr_schedule": "cosine"}, 150, 5, 0, 0xb1653dc7092eb32e},
		{"relu-adam-wide", CorpusOpticks, map[string]string{"activation": "relu", "width": "64", "depth": "2", "batch_size": "8",
			"learning_rate": "0.01", "warmup": "100"}, 150, 6, 300, 0x444b3d39df6ec901},
		{"gelu-saturated", CorpusGrammar, map[string]string{"activation": "gelu", "init_scale": "10", "optimizer": "sgd",
			"learning_rate": "0.3", "batch_size": "16"}, 150, 7, 0, 0x508c2e47bbe159aa},
		{"diverged", CorpusGrammar, map[string]string{"learning_rate": "1"}, 300, 1, 0, 0xe220feb8e6329980},
		{"diverged-nan", CorpusGrammar, map[string]string{"learning_rate": "1", "optimizer": "sgd", "init_scale": "10", "activation": "relu"}, 300, 1, 0, 0xbeb3beb4905574aa},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := DefaultHyper().Apply(tc.edits)
			if err != nil {
				t.Fatal(err)
			}
			res, net, err := train(context.Background(), Config{Hyper: h, Corpus: mustCorpus(t, tc.corpus),
				Steps: tc.steps, Seed: tc.seed, LogEvery: 10, EvalPositions: tc.evalN})
			var bh bitsHash
			if err != nil {
				bh.s(err.Error())
			} else {
				bh.f(res.ValBPB, res.TrainBPB, float64(res.Params), float64(res.Steps))
				for _, l := range res.Log {
					bh.s(l)
				}
				bh.f(net.P...)
			}
			if got := bh.sum(); got != tc.want {
				t.Errorf("hash %#x, want %#x (err %v)", got, tc.want, err)
			}
		})
	}
}

// TestGradBitsPinned pins one gradient and loss of every activation on
// networks whose pre-activations span the small, middle and saturated
// ranges of Tanh and whose logits reach far apart.
func TestGradBitsPinned(t *testing.T) {
	want := map[string]uint64{ActTanh: 0x84ce9872146828fc, ActReLU: 0x2afccd1b21aab920, ActGELU: 0x7d4cdf211ce53830}
	for _, act := range []string{ActTanh, ActReLU, ActGELU} {
		var bh bitsHash
		for _, scale := range []float64{0.05, 1, 8, 60} {
			net, err := NewNet(Shape{Vocab: 11, Context: 3, Embed: 5, Width: 9, Depth: 2, Activation: act})
			if err != nil {
				t.Fatal(err)
			}
			net.Init(newRNG(uint64(scale*100)), scale)
			r := newRNG(9)
			for i := range net.P {
				if !net.decay[i] {
					net.P[i] = scale * (r.float() - 0.5)
				}
			}
			w := net.newWork()
			g := make([]float64, len(net.P))
			for i := range 40 {
				ctx := []uint8{uint8(r.intn(11)), uint8(r.intn(11)), uint8(r.intn(11))}
				bh.f(net.grad(ctx, i%11, g, w), net.Loss(ctx, (i*7)%11, w))
			}
			bh.f(g...)
		}
		if got := bh.sum(); got != want[act] {
			t.Errorf("%s: hash %#x, want %#x", act, got, want[act])
		}
	}
}
