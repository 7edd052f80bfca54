package compiler

import (
	"strings"
	"testing"
)

const olmoRunCost = "gpu   = \"B200\"\n    gpus  = 8\n    hours = 1.5\n  }\n  tasks {"

// run_cost.gpus = 0 is a run that needs no GPU: valid, with no GPU type
// asked for, and it spends no GPU-hours.
func TestRunOnNoGPU(t *testing.T) {
	src, _ := mutate(t, readBase(t), olmoRunCost, "gpus  = 0\n    hours = 1.5\n  }\n  tasks {")
	p, ds := compileSource(t, "cpu.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatalf("gpus = 0 refused:\n%s", ds.Format(0))
	}
	found := false
	for _, e := range p.Variants[0].Envs {
		if e.Name == "olmo3" {
			found = true
			if e.GPUs != 0 || e.GPUHours.High != 0 || e.Hours.Expected != 1.5 {
				t.Errorf("olmo3: gpus %d, GPU-hours %+v, hours %+v; want 0 GPUs, 0 GPU-hours, 1.5 hours", e.GPUs, e.GPUHours, e.Hours)
			}
		}
	}
	if !found {
		t.Fatal("no environment olmo3 in the plan")
	}
	// GPU-hours with no GPU contradict each other.
	src, line := mutate(t, readBase(t), olmoRunCost, "gpus  = 0\n    gpu_hours = 3\n  }\n  tasks {")
	_, ds = compileSource(t, "cpu.hcl", []byte(src))
	if !hasDiag(ds.Format(0), "E_CONFLICT", "gpu_hours with gpus = 0") || !strings.Contains(ds.Format(0), "cpu.hcl:"+itoa(line+1)+":") {
		t.Errorf("gpu_hours with gpus = 0:\n%s", ds.Format(0))
	}
	src, _ = mutate(t, readBase(t), olmoRunCost, "gpus  = -1\n    hours = 1.5\n  }\n  tasks {")
	if _, ds = compileSource(t, "cpu.hcl", []byte(src)); !hasDiag(ds.Format(0), "E_RANGE", "run_cost.gpus must be at least 0") {
		t.Errorf("gpus = -1:\n%s", ds.Format(0))
	}
}

// The command trainer's local executor hands out only the GPUs
// executor.gpus declares: a run that needs GPUs where it declares none is
// refused at validate, at run_cost.gpus, not at every run.
func TestLocalCommandTrainerNeedsExecutorGPUs(t *testing.T) {
	base := readBase(t)
	cmd := "plugin \"cmd\" {\n  kind   = \"trainer\"\n  source = \"builtin:command\"\n  config = { command = \"python3 train.py --config {{config}}\", metric_regex = \"loss=([0-9.]+)\" }\n}\n\nprices {"
	src, _ := mutate(t, base, "prices {", cmd)
	src = strings.Replace(src, "trainer  = plugin.tinylm\n  baseline = 0.98", "trainer  = plugin.cmd\n  baseline = 0.98", 1)
	line := strings.Count(src[:strings.Index(src, "gpus  = 8")], "\n") + 1
	_, ds := compileSource(t, "local.hcl", []byte(src))
	out := ds.Format(0)
	if !hasDiag(out, "E_EXECUTOR_GPUS", `one run of environment "olmo3" needs 8 GPUs, and the local executor declares none`) || !strings.Contains(out, "local.hcl:"+itoa(line)+":") {
		t.Errorf("want E_EXECUTOR_GPUS at local.hcl:%d, got:\n%s", line, out)
	}
	// A CPU run, or an executor that declares the GPUs, is fine.
	for _, fix := range []struct{ old, new string }{
		{olmoRunCost, "gpus  = 0\n    hours = 1.5\n  }\n  tasks {"},
		{"prices {", "executor {\n  kind = \"local\"\n  gpus = 8\n}\n\nprices {"},
	} {
		ok, _ := mutate(t, src, fix.old, fix.new)
		if _, ds := compileSource(t, "local.hcl", []byte(ok)); strings.Contains(ds.Format(0), "E_EXECUTOR_GPUS") {
			t.Errorf("with %q:\n%s", fix.new, ds.Format(0))
		}
	}
}

func hasDiag(out, code, text string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, code) && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
