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
import json
import math
import os
import shutil
import sys
import tempfile

# Bounds on what the script reads: a batch is one step's samples.
MAX_BATCH_BYTES = 1 << 30
MAX_LINES = 1_000_000
ROLES = ("system", "user", "assistant")


class BadInput(Exception):
    """A job or batch the script refuses (exit status 2)."""


def _float(env, name, lo=None, lo_open=False, hi=None, hi_open=False):
    raw = env.get(name)
    if raw is None or raw == "":
        raise BadInput(f"{name} is not set: run this script as an Assay update_command")
    try:
        v = float(raw)
    except ValueError:
        raise BadInput(f"{name}={raw!r} is not a number") from None
    if not math.isfinite(v):
        raise BadInput(f"{name}={raw!r} is not finite")
    if lo is not None and (v < lo or (lo_open and v == lo)):
        raise BadInput(f"{name}={raw} must be {'above' if lo_open else 'at least'} {lo}")
    if hi is not None and (v > hi or (hi_open and v == hi)):
        raise BadInput(f"{name}={raw} must be {'below' if hi_open else 'at most'} {hi}")
    return v


def _int(env, name, lo):
    raw = env.get(name)
    if raw is None or raw == "":
        raise BadInput(f"{name} is not set: run this script as an Assay update_command")
    try:
        v = int(raw)
    except ValueError:
        raise BadInput(f"{name}={raw!r} is not an integer") from None
    if v < lo:
        raise BadInput(f"{name}={raw} must be at least {lo}")
    return v


def _path(env, name, required=True):
    v = env.get(name, "")
    if v == "":
        if required:
            raise BadInput(f"{name} is not set: run this script as an Assay update_command")
        return ""
    if not os.path.isabs(v):
        raise BadInput(f"{name}={v!r} is not an absolute path")
    return v


def read_job(env):
    """The update's job from the ASSAY_* variables the command trainer sets."""
    token_level = env.get("ASSAY_TOKEN_LEVEL", "")
    if token_level not in ("true", "false"):
        raise BadInput(f"ASSAY_TOKEN_LEVEL={token_level!r} must be true or false")
    algorithm = env.get("ASSAY_ALGORITHM", "")
    if algorithm not in ("grpo", "dapo"):
        raise BadInput(f"ASSAY_ALGORITHM={algorithm!r} must be grpo or dapo")
    base_model = env.get("ASSAY_BASE_MODEL", "")
    if base_model == "":
        raise BadInput("ASSAY_BASE_MODEL is not set: name the model on the proposer role")
    job = {
        "step": _int(env, "ASSAY_STEP", 1),
        "batch": _path(env, "ASSAY_BATCH"),
        "adapter_dir": _path(env, "ASSAY_ADAPTER_DIR"),
        "base_model": base_model,
        "previous_adapter": env.get("ASSAY_PREVIOUS_ADAPTER", ""),
        "previous_adapter_dir": _path(env, "ASSAY_PREVIOUS_ADAPTER_DIR", required=False),
        "algorithm": algorithm,
        "learning_rate": _float(env, "ASSAY_LEARNING_RATE", lo=0, lo_open=True),
        "clip_low": _float(env, "ASSAY_CLIP_LOW", lo=0, hi=1, hi_open=True),
        "clip_high": _float(env, "ASSAY_CLIP_HIGH", lo=0),
        "kl_coef": _float(env, "ASSAY_KL_COEF", lo=0),
        "token_level": token_level == "true",
        "epochs": _int(env, "ASSAY_EPOCHS", 1),
        "weight_decay": _float(env, "ASSAY_WEIGHT_DECAY", lo=0),
        "seed": int(env.get("ASSAY_SEED", "0") or "0"),
        # Set only when the spec's update block sets lora_rank; else 32.
        "lora_rank": _int(env, "ASSAY_LORA_RANK", 1) if env.get("ASSAY_LORA_RANK") else 32,
    }
    if bool(job["previous_adapter"]) != bool(job["previous_adapter_dir"]):
        raise BadInput("ASSAY_PREVIOUS_ADAPTER and ASSAY_PREVIOUS_ADAPTER_DIR must be both set or both empty")
    return job


def _check_line(n, line, step):
    where = f"batch line {n}"
    if not isinstance(line, dict):
        raise BadInput(f"{where}: not a JSON object")
    for key, kind in (("step", int), ("group", str), ("prompt", list), ("completion", str),
                      ("reward", (int, float)), ("advantage", (int, float)), ("policy", dict)):
        if key not in line:
            raise BadInput(f"{where}: no {key!r}")
        v = line[key]
        if not isinstance(v, kind) or isinstance(v, bool):
            raise BadInput(f"{where}: {key!r} is {type(v).__name__}, not {kind.__name__ if isinstance(kind, type) else 'a number'}")
    if line["step"] != step:
        raise BadInput(f"{where}: step {line['step']}, and the job is step {step}")
    if line["completion"] == "":
        raise BadInput(f"{where}: the completion is empty: nothing to reinforce")
    if not line["prompt"]:
        raise BadInput(f"{where}: the prompt has no message")
    for i, m in enumerate(line["prompt"]):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise BadInput(f"{where}: prompt message {i} is not {{\"role\": system|user|assistant, \"content\": string}}")
    for key in ("reward", "advantage"):
        if not math.isfinite(line[key]):
            raise BadInput(f"{where}: {key!r} is not finite")
    pol = line["policy"]
    if not isinstance(pol.get("adapter"), str) or not isinstance(pol.get("adapter_dir"), str) \
            or not isinstance(pol.get("step"), int) or isinstance(pol.get("step"), bool) or pol["step"] < 0:
        raise BadInput(f"{where}: 'policy' is not {{\"adapter\": string, \"adapter_dir\": string, \"step\": integer >= 0}}")
    if (pol["step"] == 0) != (pol["adapter_dir"] == ""):
        raise BadInput(f"{where}: policy step {pol['step']} with adapter_dir {pol['adapter_dir']!r}: the base model (step 0) has no directory, an adapter has one")
    if pol["step"] >= step:
        raise BadInput(f"{where}: sampled by policy step {pol['step']}, not earlier than this update (step {step})")


def read_batch(path, step):
    """The batch's lines, each checked; bounded in bytes and lines."""
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise BadInput(f"the batch {path}: {e.strerror}") from None
    if size > MAX_BATCH_BYTES:
        raise BadInput(f"the batch {path} is {size} bytes, over the {MAX_BATCH_BYTES} this script reads")
    lines = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if n > MAX_LINES:
                raise BadInput(f"the batch has more than {MAX_LINES} lines")
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except json.JSONDecodeError as e:
                raise BadInput(f"batch line {n}: not JSON: {e.msg} at column {e.colno}") from None
            _check_line(n, line, step)
            lines.append(line)
    if not lines:
        raise BadInput(f"the batch {path} has no line: Assay makes no update of an empty step")
    return lines


def plan_update(job, lines):
    """What the update does, as the dry run prints it."""
    by_policy = {}
    for line in lines:
        p = line["policy"]
        key = (p["step"], p["adapter"], p["adapter_dir"])
        by_policy[key] = by_policy.get(key, 0) + 1
    hyper = {k: job[k] for k in ("algorithm", "learning_rate", "clip_low", "clip_high", "kl_coef",
                                  "token_level", "epochs", "weight_decay")}
    return {
        "step": job["step"],
        "samples": len(lines),
        "groups": len({line["group"] for line in lines}),
        "base_model": job["base_model"],
        "continue_from": job["previous_adapter_dir"],
        "pi_old": [{"step": s, "adapter": a, "adapter_dir": d, "samples": c}
                   for (s, a, d), c in sorted(by_policy.items())],
        "hyperparameters": hyper,
        "adapter_dir": job["adapter_dir"],
    }


def hand_off(adapter_dir, write, stub=False):
    """Writes the adapter into a fresh sibling directory with write(dir),
    checks it holds what a server loads (adapter_config.json and weights),
    and renames it to adapter_dir, which must be absent or empty."""
    parent = os.path.dirname(adapter_dir.rstrip(os.sep))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".adapter-", dir=parent)
    try:
        write(tmp)
        names = set(os.listdir(tmp))
        if "adapter_config.json" not in names:
            raise RuntimeError(f"the adapter written to {tmp} has no adapter_config.json")
        if not stub and not names & {"adapter_model.safetensors", "adapter_model.bin"}:
            raise RuntimeError(f"the adapter written to {tmp} has no weights (adapter_model.safetensors)")
        if os.path.isdir(adapter_dir):
            if os.listdir(adapter_dir):
                raise RuntimeError(f"{adapter_dir} is not empty: it is not this update's to overwrite")
            os.rmdir(adapter_dir)
        os.rename(tmp, adapter_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_stub(job):
    def write(d):
        with open(os.path.join(d, "adapter_config.json"), "w", encoding="utf-8") as f:
            json.dump({"assay_stub": True, "base_model_name_or_path": job["base_model"], "step": job["step"],
                       "note": "written by grpo_update.py --dry-run --stub-adapter: no weights, not loadable"}, f)
    return write


def train(job, lines):
    """The update itself (torch, transformers and peft)."""
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(job["seed"])
    tok = AutoTokenizer.from_pretrained(job["base_model"])
    base = AutoModelForCausalLM.from_pretrained(job["base_model"], torch_dtype=torch.bfloat16, device_map="auto")
    if job["previous_adapter_dir"]:  # continue from the current adapter
        model = PeftModel.from_pretrained(base, job["previous_adapter_dir"], is_trainable=True)
    else:
        model = get_peft_model(base, LoraConfig(r=job["lora_rank"], lora_alpha=2 * job["lora_rank"], target_modules="all-linear", task_type="CAUSAL_LM"))

    def encode(line):
        prompt = tok.apply_chat_template(line["prompt"], tokenize=False, add_generation_prompt=True)
        p_ids = tok(prompt, add_special_tokens=False).input_ids
        c_ids = tok(line["completion"] + (tok.eos_token or ""), add_special_tokens=False).input_ids
        return torch.tensor(p_ids + c_ids), len(p_ids)

    def token_logps(ids, n_prompt):
        ids = ids.to(model.device).unsqueeze(0)
        logits = model(ids).logits[0, n_prompt - 1:-1].float()
        return torch.log_softmax(logits, -1).gather(-1, ids[0, n_prompt:, None]).squeeze(-1)

    data = [encode(line) for line in lines]
    adv = [float(line["advantage"]) for line in lines]
    old = [None] * len(lines)
    with torch.no_grad():
        # pi_old: each line's sampling policy. The base model is the
        # adapter disabled; an earlier adapter is loaded beside the trained
        # one, used, and deleted.
        by_dir = {}
        for i, line in enumerate(lines):
            by_dir.setdefault(line["policy"]["adapter_dir"], []).append(i)
        for n, (d, idx) in enumerate(sorted(by_dir.items())):
            if d == "":
                with model.disable_adapter():
                    for i in idx:
                        old[i] = token_logps(*data[i])
            elif d == job["previous_adapter_dir"]:
                for i in idx:
                    old[i] = token_logps(*data[i])
            else:
                name = f"pi_old_{n}"
                model.load_adapter(d, adapter_name=name, is_trainable=False)
                model.set_adapter(name)
                for i in idx:
                    old[i] = token_logps(*data[i])
                model.set_adapter("default")
                model.delete_adapter(name)
        ref = None
        if job["kl_coef"] > 0:
            with model.disable_adapter():
                ref = [token_logps(ids, n) for ids, n in data]
    for q in model.parameters():
        q.requires_grad_(False)
    for name, q in model.named_parameters():
        if "lora_" in name:
            q.requires_grad_(True)
    opt = torch.optim.AdamW([q for q in model.parameters() if q.requires_grad], lr=job["learning_rate"],
                            weight_decay=job["weight_decay"])
    n_tokens = sum(len(o) for o in old)
    clip_lo, clip_hi = 1 - job["clip_low"], 1 + job["clip_high"]
    stats = {"loss": 0.0, "clipped": 0.0}
    for _ in range(job["epochs"]):
        opt.zero_grad()
        total, clipped = 0.0, 0
        for i, ((ids, n), a) in enumerate(zip(data, adv)):
            lp = token_logps(ids, n)
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
        torch.nn.utils.clip_grad_norm_([q for q in model.parameters() if q.requires_grad], 1.0)
        opt.step()
        stats = {"loss": total, "clipped": clipped / max(n_tokens, 1)}
    hand_off(job["adapter_dir"], model.save_pretrained)
    return stats


def main(argv=None, env=None):
    ap = argparse.ArgumentParser(description="One GRPO/DAPO policy update for an Assay update_command; the job comes from the ASSAY_* environment.")
    ap.add_argument("--dry-run", action="store_true", help="check the job and the batch and print the update's plan as JSON; imports no torch")
    ap.add_argument("--stub-adapter", action="store_true", help="with --dry-run: hand off a stub adapter (no weights) to ASSAY_ADAPTER_DIR")
    args = ap.parse_args(argv)
    if args.stub_adapter and not args.dry_run:
        ap.error("--stub-adapter goes with --dry-run")
    env = os.environ if env is None else env
    try:
        job = read_job(env)
        lines = read_batch(job["batch"], job["step"])
    except BadInput as e:
        print(f"grpo_update.py: {e}", file=sys.stderr)
        return 2
    plan = plan_update(job, lines)
    if args.dry_run:
        if args.stub_adapter:
            try:
                hand_off(job["adapter_dir"], write_stub(job), stub=True)
            except (OSError, RuntimeError) as e:
                print(f"grpo_update.py: handing off the adapter: {e}", file=sys.stderr)
                return 1
            plan["stub_adapter"] = job["adapter_dir"]
        json.dump(plan, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    stats = train(job, lines)
    json.dump({"plan": plan, "stats": stats}, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
