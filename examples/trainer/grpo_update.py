#!/usr/bin/env python3
"""One GRPO or DAPO policy update of an Assay RL loop, on a LoRA adapter.

Assay runs a loop's update_command after every step with the step's batch
(JSONL, see docs/policy-training.md) and the job in the environment
(ASSAY_BATCH, ASSAY_ADAPTER_DIR, ASSAY_BASE_MODEL, ASSAY_ALGORITHM, ...).
This script is such a command:

    update_command = "python3 /path/to/grpo_update.py"

It reads the job and the batch, computes pi_old for every line with the
policy that sampled it (the line's "policy": the base model, or an earlier
update's adapter), pi_ref with the adapter disabled, and makes `epochs`
passes of the clipped surrogate (PPO clipping to [1 - clip_low,
1 + clip_high], minus kl_coef times GRPO's k3 KL estimator; DAPO's
token-level mean when token_level is true) with AdamW (weight_decay), on a
LoRA adapter that continues from ASSAY_PREVIOUS_ADAPTER_DIR (a fresh one at
the first update). The adapter is written next to ASSAY_ADAPTER_DIR and
renamed into place only once it is complete, so a crash never leaves a
half-written adapter where Assay and the server look for one.

Training needs torch, transformers and peft, and a GPU for any model of
size. --dry-run needs only Python 3: it checks the job and the batch and
prints what the update would do, as JSON, without importing torch.
--stub-adapter (with --dry-run) then hands off a stub adapter, a config
file that names no weights, through the same path, so an update_command's
wiring can be tested without a GPU; a server cannot load it.

Exit status: 0 done; 2 a bad job or batch (the message says which line and
field); 1 training failed.
"""

import argparse
import os
import sys

# assay_job.py is beside this script; no bytecode is left in the checkout.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from assay_job import (BadInput, add_flags, check_chat, check_policy, check_types, encode, env_choice, env_float,  # noqa: E402
                       env_int, hand_off, load_model, policies, read_batch, read_common_job, run, token_logps,
                       train_only_lora, under_policies)

SCRIPT = "grpo_update.py"


def read_job(env):
    """The update's job from the ASSAY_* variables the command trainer sets."""
    job = read_common_job(env, ("grpo", "dapo"), "proposer")
    job["token_level"] = env_choice(env, "ASSAY_TOKEN_LEVEL", ("true", "false")) == "true"
    job["clip_low"] = env_float(env, "ASSAY_CLIP_LOW", lo=0, hi=1, hi_open=True)
    job["clip_high"] = env_float(env, "ASSAY_CLIP_HIGH", lo=0)
    job["epochs"] = env_int(env, "ASSAY_EPOCHS", 1)
    return job


def _check_line(n, line, step):
    where = f"batch line {n}"
    check_types(where, line, (("step", int), ("group", str), ("prompt", list), ("completion", str),
                              ("reward", (int, float)), ("advantage", (int, float)), ("policy", dict)))
    if line["step"] != step:
        raise BadInput(f"{where}: step {line['step']}, and the job is step {step}")
    if line["completion"] == "":
        raise BadInput(f"{where}: the completion is empty: nothing to reinforce")
    check_chat(where, "prompt", line["prompt"])
    pol = line["policy"]
    check_policy(where, "policy", pol)
    if pol["step"] >= step:
        raise BadInput(f"{where}: sampled by policy step {pol['step']}, not earlier than this update (step {step})")


def plan_update(job, lines):
    """What the update does, as the dry run prints it."""
    hyper = {k: job[k] for k in ("algorithm", "learning_rate", "clip_low", "clip_high", "kl_coef",
                                  "token_level", "epochs", "weight_decay")}
    return {
        "step": job["step"],
        "samples": len(lines),
        "groups": len({line["group"] for line in lines}),
        "base_model": job["base_model"],
        "continue_from": job["previous_adapter_dir"],
        "pi_old": policies(lines, "policy"),
        "hyperparameters": hyper,
        "adapter_dir": job["adapter_dir"],
    }


def train(job, lines, plan=None):
    """The update itself (torch, transformers and peft)."""
    import torch

    tok, model = load_model(job)
    data = [encode(tok, line["prompt"], line["completion"]) for line in lines]
    adv = [float(line["advantage"]) for line in lines]
    # pi_old: each line's sampling policy; pi_ref: the base model.
    old = under_policies(model, job, {i: line["policy"] for i, line in enumerate(lines)}, lambda i: token_logps(model, *data[i]))
    ref = None
    if job["kl_coef"] > 0:
        base = {"adapter": "", "adapter_dir": "", "step": 0}
        ref = under_policies(model, job, {i: base for i in range(len(lines))}, lambda i: token_logps(model, *data[i]))
    params = train_only_lora(model)
    opt = torch.optim.AdamW(params, lr=job["learning_rate"], weight_decay=job["weight_decay"])
    n_tokens = sum(len(o) for o in old.values())
    clip_lo, clip_hi = 1 - job["clip_low"], 1 + job["clip_high"]
    stats = {"loss": 0.0, "clipped": 0.0}
    for _ in range(job["epochs"]):
        opt.zero_grad()
        total, clipped = 0.0, 0
        for i, ((ids, n), a) in enumerate(zip(data, adv)):
            lp = token_logps(model, ids, n)
            ratio = torch.exp(lp - old[i])
            surrogate = torch.minimum(ratio * a, torch.clamp(ratio, clip_lo, clip_hi) * a)
            per_token = -surrogate
            if ref is not None:  # GRPO's k3 estimator of KL(pi || pi_ref)
                d = ref[i] - lp
                per_token = per_token + job["kl_coef"] * (torch.exp(d) - d - 1)
            # DAPO: every token of the batch weighs the same; GRPO: every sample.
            loss = per_token.sum() / n_tokens if job["token_level"] else per_token.mean() / len(data)
            loss.backward()
            total += loss.item()
            clipped += int(((ratio < clip_lo) | (ratio > clip_hi)).sum())
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        stats = {"loss": total, "clipped": clipped / max(n_tokens, 1)}
    hand_off(job["adapter_dir"], model.save_pretrained)
    return stats


def main(argv=None, env=None):
    ap = argparse.ArgumentParser(description="One GRPO/DAPO policy update for an Assay update_command; the job comes from the ASSAY_* environment.")
    add_flags(ap)
    args = ap.parse_args(argv)
    if args.stub_adapter and not args.dry_run:
        ap.error("--stub-adapter goes with --dry-run")
    env = os.environ if env is None else env
    return run(SCRIPT, args, env, read_job, lambda job: read_batch(job["batch"], lambda n, line: _check_line(n, line, job["step"])), plan_update, train)


if __name__ == "__main__":
    sys.exit(main())
