#!/usr/bin/env python3
"""One update of an Assay critic, on a LoRA adapter: SFT on kept
critiques, a GRPO step on the critic's own verdicts, and the continual
updates of a critic during evolution (T-GRPO, and SDFT by a token-level
reverse KL against the outcome-conditioned teacher).

Assay runs a trainer's update_command for every update of a
critic_training block (critic-sft, critic-grpo) and of a loop's continual
block (SDFT: critic-sft, T-GRPO: critic-grpo) with the update's batch
(JSONL, docs/critic-training.md) and the job in the environment
(ASSAY_BATCH, ASSAY_ADAPTER_DIR, ASSAY_BASE_MODEL, ASSAY_ALGORITHM, ...).
This script is such a command:

    update_command = "python3 /path/to/train_critic.py"

What it trains, on a LoRA adapter (rank ASSAY_LORA_RANK, else 32, every
linear layer; the backbone frozen) that continues from
ASSAY_PREVIOUS_ADAPTER_DIR (a fresh one at the first update):

- critic-sft, lines without "student" (the critic training's SFT): the
  kept critiques, with TRL's SFTTrainer: loss on the completion's tokens
  only, `epochs` epochs at `learning_rate`, AdamW with `weight_decay`,
  --batch-size sequences an optimizer step.
- critic-sft, lines with "student" (a continual SDFT update): the
  critic's own critique (its trajectory) under the critic's prompt, the
  student, against the frozen critic of the line's "reference" reading
  "teacher_prompt" (the same chat told the measured outcome), the
  teacher: at every position of the student's critique, the full
  next-token reverse KL(student || teacher), averaged over the critique's
  tokens, then over lines. A line without a student (its call failed) is
  trained on its "completion" (the teacher role's critique) by negative
  log-likelihood; --sdft sft trains every line so.
- critic-grpo (the critic training's GRPO steps, a loop's T-GRPO): the
  line's "policy" is pi_old, its "reference" pi_ref (the critic as GRPO
  found it: the SFT critic; in a loop, the trained critic); groups whose
  rewards (+1 for a right verdict, -1 otherwise) are all equal are
  dropped, and each of max(epochs, 1) passes is one AdamW step on
  -ratio x advantage plus kl_coef times GRPO's k3 estimator of
  KL(pi || pi_ref), averaged per sample, then over samples (the ratio is
  clipped to [1 - clip_low, 1 + clip_high] when those are set; a critic
  job sets neither, and at one pass the ratio is 1).

The adapter is written next to ASSAY_ADAPTER_DIR and renamed into place
only once it is complete.

Training needs torch, transformers, peft and trl (SFT), and a GPU for any
model of size. --dry-run needs only Python 3: it checks the job and the
batch and prints what the update would do, as JSON, without importing
torch. --stub-adapter (with --dry-run) then hands off a stub adapter, a
config file that names no weights, through the same path, so a spec's
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
from assay_job import (BadInput, add_flags, check_chat, check_policy, check_types, completion_logits, encode,  # noqa: E402
                       env_float, env_int, hand_off, load_model, policies, read_batch, read_common_job, run,
                       token_logps, train_only_lora, under_policies)

SCRIPT = "train_critic.py"
SFT, GRPO = "critic-sft", "critic-grpo"


def read_job(env):
    """The update's job from the ASSAY_* variables the command trainer sets."""
    job = read_common_job(env, (SFT, GRPO), "critic")
    # SFT's epochs are at least 1; a GRPO step's plan leaves them 0: one pass.
    job["epochs"] = env_int(env, "ASSAY_EPOCHS", 1 if job["algorithm"] == SFT else 0)
    for k in ("clip_low", "clip_high"):
        name = "ASSAY_" + k.upper()
        job[k] = env_float(env, name, lo=0, hi=1 if k == "clip_low" else None, hi_open=True) if env.get(name) else 0.0
    return job


def check_line(n, line, job):
    where = f"batch line {n}"
    check_types(where, line, (("step", int), ("group", str), ("prompt", list), ("completion", str), ("label", str),
                              ("verdict", str), ("reward", (int, float)), ("advantage", (int, float)),
                              ("policy", dict), ("reference", dict)))
    if line["step"] != job["step"]:
        raise BadInput(f"{where}: step {line['step']}, and the job is step {job['step']}")
    if line["completion"] == "":
        raise BadInput(f"{where}: the completion is empty: nothing to train on")
    check_chat(where, "prompt", line["prompt"])
    check_policy(where, "policy", line["policy"])
    check_policy(where, "reference", line["reference"])
    if "stratum" in line and not isinstance(line["stratum"], str):
        raise BadInput(f"{where}: 'stratum' is {type(line['stratum']).__name__}, not str")
    student = line.get("student")
    if job["algorithm"] == GRPO:
        if line["reward"] not in (-1, 1):
            raise BadInput(f"{where}: reward {line['reward']}: a critic's GRPO reward is +1 for a right verdict, -1 otherwise")
        if student is not None or "teacher_prompt" in line:
            raise BadInput(f"{where}: a critic-grpo line has no 'student' or 'teacher_prompt' (those are an SDFT line's)")
        return
    if student is None:
        if "teacher_prompt" in line:
            raise BadInput(f"{where}: 'teacher_prompt' without 'student': the teacher is read along the student's critique")
        return
    if not isinstance(student, dict) or not isinstance(student.get("completion"), str) or not student["completion"] \
            or not isinstance(student.get("verdict"), str):
        raise BadInput(f"{where}: 'student' is not {{\"completion\": non-empty string, \"verdict\": string}}")
    if "teacher_prompt" not in line:
        raise BadInput(f"{where}: a line with 'student' needs 'teacher_prompt', the chat its teacher reads")
    check_chat(where, "teacher_prompt", line["teacher_prompt"])


def read_lines(job):
    return read_batch(job["batch"], lambda n, line: check_line(n, line, job))


def grpo_groups(lines):
    """The lines of the groups whose rewards differ (GRPO learns nothing
    from a group of equal rewards), and how many groups were dropped."""
    by = {}
    for line in lines:
        by.setdefault(line["group"], []).append(line)
    kept = [line for g in by.values() if len({x["reward"] for x in g}) > 1 for line in g]
    return kept, sum(1 for g in by.values() if len({x["reward"] for x in g}) <= 1)


def objective(job, opts):
    if job["algorithm"] == GRPO:
        return "grpo"
    return "sft" if opts.sdft == "sft" else "sdft-reverse-kl"


def plan_update(job, lines, opts):
    """What the update does, as the dry run prints it."""
    obj = objective(job, opts)
    plan = {
        "step": job["step"],
        "algorithm": job["algorithm"],
        "samples": len(lines),
        "groups": len({line["group"] for line in lines}),
        "base_model": job["base_model"],
        "continue_from": job["previous_adapter_dir"],
        "adapter_dir": job["adapter_dir"],
        "hyperparameters": {k: job[k] for k in ("learning_rate", "kl_coef", "weight_decay", "epochs", "lora_rank",
                                                 "clip_low", "clip_high")},
    }
    if obj == "grpo":
        kept, dropped = grpo_groups(lines)
        if not kept:
            raise BadInput("every group's rewards are equal: GRPO has nothing to learn from this batch (Assay drops such groups)")
        plan.update(objective="grpo", trained=len(kept), dropped_groups=dropped, pi_old=policies(kept, "policy"),
                    reference=policies(kept, "reference") if job["kl_coef"] > 0 else [])
        plan["hyperparameters"]["passes"] = max(job["epochs"], 1)
        return plan
    strata = {}
    for line in lines:
        s = line.get("stratum") or "none"
        strata[s] = strata.get(s, 0) + 1
    distil = [line for line in lines if "student" in line] if obj != "sft" else []
    if not distil:
        obj = "sft"
    plan.update(objective=obj, strata=strata, distilled=len(distil), fine_tuned=len(lines) - len(distil))
    if distil:
        plan.update(student=policies(distil, "policy"), teacher=policies(distil, "reference"))
    else:
        plan["hyperparameters"]["batch_size"] = opts.batch_size
    return plan


# Training (torch, transformers, peft, trl): imported only here.

def train_sft(job, lines, opts):
    """SFT on the lines' completions with TRL's SFTTrainer, on tokens
    encoded as GRPO encodes them (the prompt through the chat template,
    the completion as given, then end of sequence), loss on the
    completion only."""
    import tempfile

    import torch
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    tok, model = load_model(job)
    rows = []
    for line in lines:
        ids, n = encode(tok, line["prompt"], line["completion"])
        ids = ids.tolist()
        rows.append({"input_ids": ids, "completion_mask": [0] * n + [1] * (len(ids) - n)})
    with tempfile.TemporaryDirectory() as out:
        cfg = SFTConfig(output_dir=out, num_train_epochs=job["epochs"], learning_rate=job["learning_rate"],
                        weight_decay=job["weight_decay"], per_device_train_batch_size=1,
                        gradient_accumulation_steps=opts.batch_size, completion_only_loss=True, max_length=None,
                        bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(), save_strategy="no",
                        report_to="none", logging_steps=1, seed=job["seed"])
        trainer = SFTTrainer(model=model, args=cfg, train_dataset=Dataset.from_list(rows), processing_class=tok)
        result = trainer.train()
        hand_off(job["adapter_dir"], trainer.model.save_pretrained)
    return {"loss": float(result.training_loss), "steps": int(result.global_step)}


def train_sdft(job, lines):
    """SDFT: per line with a student, the full next-token reverse KL of
    the student (the adapter trained, on the critic's prompt) from the
    teacher (the reference adapter, frozen, on the teacher's prompt) at
    every token of the student's critique; per line without, the
    completion's negative log-likelihood. One AdamW step a pass."""
    import torch

    tok, model = load_model(job)
    student, teacher = {}, {}
    for i, line in enumerate(lines):
        s = line.get("student")
        if s is None:
            student[i] = encode(tok, line["prompt"], line["completion"])
            continue
        student[i] = encode(tok, line["prompt"], s["completion"])
        teacher[i] = encode(tok, line["teacher_prompt"], s["completion"])
    # The teacher's log-probabilities over the vocabulary at each of the
    # student's tokens: the fixed target (kept on the CPU; positions x
    # vocabulary x 4 bytes a line).
    target = under_policies(model, job, {i: lines[i]["reference"] for i in teacher},
                            lambda i: torch.log_softmax(completion_logits(model, *teacher[i]), -1).cpu())
    params = train_only_lora(model)
    opt = torch.optim.AdamW(params, lr=job["learning_rate"], weight_decay=job["weight_decay"])
    stats = {}
    for _ in range(job["epochs"]):
        opt.zero_grad()
        kl = nll = 0.0
        for i in range(len(lines)):
            if i in target:
                logp = torch.log_softmax(completion_logits(model, *student[i]), -1)
                t = target[i].to(logp.device)
                # KL(student || teacher) = sum_v p_s(v) (log p_s(v) - log p_t(v)) per position.
                loss = (logp.exp() * (logp - t)).sum(-1).mean() / len(lines)
                kl += loss.item()
            else:
                loss = -token_logps(model, *student[i]).mean() / len(lines)
                nll += loss.item()
            loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        stats = {"reverse_kl": kl, "nll": nll}
    hand_off(job["adapter_dir"], model.save_pretrained)
    return stats


def train_grpo(job, lines):
    """A GRPO step on the kept groups (grpo_groups)."""
    import torch

    lines, _ = grpo_groups(lines)
    tok, model = load_model(job)
    data = [encode(tok, line["prompt"], line["completion"]) for line in lines]
    every = range(len(lines))
    old = under_policies(model, job, {i: lines[i]["policy"] for i in every}, lambda i: token_logps(model, *data[i]))
    ref = None
    if job["kl_coef"] > 0:
        ref = under_policies(model, job, {i: lines[i]["reference"] for i in every}, lambda i: token_logps(model, *data[i]))
    params = train_only_lora(model)
    opt = torch.optim.AdamW(params, lr=job["learning_rate"], weight_decay=job["weight_decay"])
    clip = job["clip_low"] > 0 or job["clip_high"] > 0
    lo, hi = 1 - job["clip_low"], 1 + job["clip_high"]
    stats = {}
    for _ in range(max(job["epochs"], 1)):
        opt.zero_grad()
        total, kl = 0.0, 0.0
        for i, (ids, n) in enumerate(data):
            a = float(lines[i]["advantage"])
            lp = token_logps(model, ids, n)
            ratio = torch.exp(lp - old[i])
            surrogate = ratio * a
            if clip:
                surrogate = torch.minimum(surrogate, torch.clamp(ratio, lo, hi) * a)
            per_token = -surrogate
            if ref is not None:  # GRPO's k3 estimator of KL(pi || pi_ref)
                d = ref[i] - lp
                k3 = torch.exp(d) - d - 1
                per_token = per_token + job["kl_coef"] * k3
                kl += k3.mean().item() / len(data)
            loss = per_token.mean() / len(data)
            loss.backward()
            total += loss.item()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        stats = {"loss": total, "kl": kl}
    hand_off(job["adapter_dir"], model.save_pretrained)
    return stats


def train(job, lines, plan, opts):
    if plan["objective"] == "grpo":
        return train_grpo(job, lines)
    if plan["objective"] == "sdft-reverse-kl":
        return train_sdft(job, lines)
    return train_sft(job, lines, opts)


def main(argv=None, env=None):
    ap = argparse.ArgumentParser(description="One critic update (SFT, GRPO, T-GRPO, SDFT) for an Assay update_command; the job comes from the ASSAY_* environment.")
    add_flags(ap)
    ap.add_argument("--sdft", choices=("reverse-kl", "sft"), default="reverse-kl",
                    help="a critic-sft batch with the student's critiques: distil the outcome-conditioned teacher along them (reverse-kl, the default), or fine-tune on the teacher's critiques (sft)")
    ap.add_argument("--batch-size", type=int, default=16, help="SFT: sequences an optimizer step (gradient accumulation; default 16)")
    args = ap.parse_args(argv)
    if args.stub_adapter and not args.dry_run:
        ap.error("--stub-adapter goes with --dry-run")
    if args.batch_size < 1:
        ap.error("--batch-size must be at least 1")
    env = os.environ if env is None else env
    return run(SCRIPT, args, env, read_job, read_lines, lambda job, lines: plan_update(job, lines, args),
               lambda job, lines, plan: train(job, lines, plan, args))


if __name__ == "__main__":
    sys.exit(main())
