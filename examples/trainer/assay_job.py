"""What Assay's example update commands share: reading an update's job
from the ASSAY_* environment and its batch (JSONL) with bounded reads,
the checks on both, the adapter hand-off, and the PyTorch/PEFT pieces of
training a LoRA adapter on a batch.

grpo_update.py (a proposer's GRPO or DAPO update) and train_critic.py (a
critic's SFT, GRPO, T-GRPO and SDFT updates) import it from beside them;
nothing here imports torch until a function that trains is called, so a
dry run needs only Python 3.
"""

import json
import math
import os
import shutil
import sys
import tempfile

# Bounds on what a script reads: a batch is one update's samples.
MAX_BATCH_BYTES = 1 << 30
MAX_LINES = 1_000_000
ROLES = ("system", "user", "assistant")
# The rank of a fresh adapter when the spec leaves it to the command.
DEFAULT_LORA_RANK = 32


class BadInput(Exception):
    """A job or batch a script refuses (exit status 2)."""


# The job: ASSAY_* variables, as the command trainer sets them
# (docs/policy-training.md, "The update command").

def env_float(env, name, lo=None, lo_open=False, hi=None, hi_open=False):
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


def env_int(env, name, lo):
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


def env_path(env, name, required=True):
    v = env.get(name, "")
    if v == "":
        if required:
            raise BadInput(f"{name} is not set: run this script as an Assay update_command")
        return ""
    if not os.path.isabs(v):
        raise BadInput(f"{name}={v!r} is not an absolute path")
    return v


def env_choice(env, name, choices):
    v = env.get(name, "")
    if v not in choices:
        raise BadInput(f"{name}={v!r} must be {' or '.join(choices)}")
    return v


def read_common_job(env, algorithms, what):
    """The job's values every update has; what names the role whose model
    is trained (for the message when ASSAY_BASE_MODEL is unset)."""
    algorithm = env_choice(env, "ASSAY_ALGORITHM", algorithms)
    base_model = env.get("ASSAY_BASE_MODEL", "")
    if base_model == "":
        raise BadInput(f"ASSAY_BASE_MODEL is not set: name the model on the {what} role")
    seed = env.get("ASSAY_SEED", "") or "0"
    try:
        seed = int(seed)
    except ValueError:
        raise BadInput(f"ASSAY_SEED={seed!r} is not an integer") from None
    job = {
        "step": env_int(env, "ASSAY_STEP", 1),
        "batch": env_path(env, "ASSAY_BATCH"),
        "adapter_dir": env_path(env, "ASSAY_ADAPTER_DIR"),
        "base_model": base_model,
        "previous_adapter": env.get("ASSAY_PREVIOUS_ADAPTER", ""),
        "previous_adapter_dir": env_path(env, "ASSAY_PREVIOUS_ADAPTER_DIR", required=False),
        "algorithm": algorithm,
        "learning_rate": env_float(env, "ASSAY_LEARNING_RATE", lo=0, lo_open=True),
        "kl_coef": env_float(env, "ASSAY_KL_COEF", lo=0),
        "weight_decay": env_float(env, "ASSAY_WEIGHT_DECAY", lo=0),
        "seed": seed,
        # Set only when the spec's update block sets lora_rank.
        "lora_rank": env_int(env, "ASSAY_LORA_RANK", 1) if env.get("ASSAY_LORA_RANK") else DEFAULT_LORA_RANK,
    }
    if bool(job["previous_adapter"]) != bool(job["previous_adapter_dir"]):
        raise BadInput("ASSAY_PREVIOUS_ADAPTER and ASSAY_PREVIOUS_ADAPTER_DIR must be both set or both empty")
    return job


# The batch: one JSON object a line.

def read_batch(path, check):
    """The batch's lines, each checked by check(n, line); bounded in bytes
    and lines."""
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
            if not isinstance(line, dict):
                raise BadInput(f"batch line {n}: not a JSON object")
            check(n, line)
            lines.append(line)
    if not lines:
        raise BadInput(f"the batch {path} has no line: Assay makes no update of an empty step")
    return lines


def check_types(where, line, fields):
    """Each (key, type) of fields is in line with that type (a number is
    int or float; no bool passes for either)."""
    for key, kind in fields:
        if key not in line:
            raise BadInput(f"{where}: no {key!r}")
        v = line[key]
        if not isinstance(v, kind) or isinstance(v, bool):
            want = kind.__name__ if isinstance(kind, type) else "a number"
            raise BadInput(f"{where}: {key!r} is {type(v).__name__}, not {want}")
        if isinstance(v, float) and not math.isfinite(v):
            raise BadInput(f"{where}: {key!r} is not finite")


def check_chat(where, key, msgs):
    if not isinstance(msgs, list) or not msgs:
        raise BadInput(f"{where}: {key!r} has no message")
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise BadInput(f"{where}: {key} message {i} is not {{\"role\": system|user|assistant, \"content\": string}}")


def check_policy(where, key, pol):
    """pol names an adapter as a batch line does: {"adapter", "adapter_dir",
    "step"}; the base model (step 0) has no directory, an adapter has one."""
    if not isinstance(pol, dict) or not isinstance(pol.get("adapter"), str) or not isinstance(pol.get("adapter_dir"), str) \
            or not isinstance(pol.get("step"), int) or isinstance(pol.get("step"), bool) or pol["step"] < 0:
        raise BadInput(f"{where}: {key!r} is not {{\"adapter\": string, \"adapter_dir\": string, \"step\": integer >= 0}}")
    if (pol["step"] == 0) != (pol["adapter_dir"] == ""):
        raise BadInput(f"{where}: {key} step {pol['step']} with adapter_dir {pol['adapter_dir']!r}: the base model (step 0) has no directory, an adapter has one")
    if pol["adapter_dir"] and not os.path.isabs(pol["adapter_dir"]):
        raise BadInput(f"{where}: {key} adapter_dir {pol['adapter_dir']!r} is not an absolute path")


def policies(lines, key):
    """The distinct adapters lines[i][key] names, with how many lines name
    each, for a dry run's plan."""
    count = {}
    for line in lines:
        p = line[key]
        k = (p["step"], p["adapter"], p["adapter_dir"])
        count[k] = count.get(k, 0) + 1
    return [{"step": s, "adapter": a, "adapter_dir": d, "samples": c} for (s, a, d), c in sorted(count.items())]


# The hand-off: an adapter is renamed into place only once it is whole.

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


def write_stub(job, script):
    """A stub adapter's writer: a config file that names no weights."""
    def write(d):
        with open(os.path.join(d, "adapter_config.json"), "w", encoding="utf-8") as f:
            json.dump({"assay_stub": True, "base_model_name_or_path": job["base_model"], "step": job["step"],
                       "note": f"written by {script} --dry-run --stub-adapter: no weights, not loadable"}, f)
    return write


def run(script, args, env, read_job, read_lines, plan_update, train):
    """A script's main after its arguments: read and check the job and the
    batch (status 2 on bad input), then print the plan (--dry-run, with
    --stub-adapter handing off a stub) or train and hand off the adapter."""
    try:
        job = read_job(env)
        lines = read_lines(job)
        plan = plan_update(job, lines)
    except BadInput as e:
        print(f"{script}: {e}", file=sys.stderr)
        return 2
    if args.dry_run:
        if args.stub_adapter:
            try:
                hand_off(job["adapter_dir"], write_stub(job, script), stub=True)
            except (OSError, RuntimeError) as e:
                print(f"{script}: handing off the adapter: {e}", file=sys.stderr)
                return 1
            plan["stub_adapter"] = job["adapter_dir"]
        json.dump(plan, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    stats = train(job, lines, plan)
    json.dump({"plan": plan, "stats": stats}, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


def add_flags(ap):
    ap.add_argument("--dry-run", action="store_true", help="check the job and the batch and print the update's plan as JSON; imports no torch")
    ap.add_argument("--stub-adapter", action="store_true", help="with --dry-run: hand off a stub adapter (no weights) to ASSAY_ADAPTER_DIR")


# Training (torch, transformers, peft): imported only when called.

def load_model(job, fresh_dropout=0.0):
    """The tokenizer and the base model with the LoRA adapter to train: the
    one ASSAY_PREVIOUS_ADAPTER_DIR names (continued), or a fresh one of
    rank lora_rank on every linear layer. The backbone is frozen: only the
    adapter's parameters train."""
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(job["seed"])
    tok = AutoTokenizer.from_pretrained(job["base_model"])
    base = AutoModelForCausalLM.from_pretrained(job["base_model"], torch_dtype=torch.bfloat16, device_map="auto")
    if job["previous_adapter_dir"]:
        model = PeftModel.from_pretrained(base, job["previous_adapter_dir"], is_trainable=True)
    else:
        r = job["lora_rank"]
        model = get_peft_model(base, LoraConfig(r=r, lora_alpha=2 * r, lora_dropout=fresh_dropout, target_modules="all-linear", task_type="CAUSAL_LM"))
    return tok, model


def train_only_lora(model):
    """Freezes every parameter but the trained adapter's (after other
    adapters were loaded and deleted) and returns those."""
    for name, q in model.named_parameters():
        q.requires_grad_("lora_" in name and ".default." in name)
    return [q for q in model.parameters() if q.requires_grad]


def encode(tok, prompt, completion):
    """The token ids of prompt (a chat, through the tokenizer's chat
    template) followed by completion (as the model returned it, with the
    end-of-sequence token), and the prompt's length."""
    import torch

    text = tok.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
    p_ids = tok(text, add_special_tokens=False).input_ids
    c_ids = tok(completion + (tok.eos_token or ""), add_special_tokens=False).input_ids
    return torch.tensor(p_ids + c_ids), len(p_ids)


def completion_logits(model, ids, n_prompt):
    """The model's logits at every completion position (float32)."""
    ids = ids.to(model.device).unsqueeze(0)
    return model(ids).logits[0, n_prompt - 1:-1].float()


def token_logps(model, ids, n_prompt):
    """The log-probability of each completion token."""
    import torch

    logits = completion_logits(model, ids, n_prompt)
    target = ids.to(logits.device)[n_prompt:, None]
    return torch.log_softmax(logits, -1).gather(-1, target).squeeze(-1)


def under_policies(model, job, pols, fn):
    """fn(i) for every i of pols (index -> batch-line policy), each under
    the adapter its policy names, without gradients: the base model is the
    trained adapter disabled; the adapter being continued is itself, before
    any step; another is loaded beside it, used and deleted."""
    import torch

    out = {}
    by_dir = {}
    for i, pol in pols.items():
        by_dir.setdefault(pol["adapter_dir"], []).append(i)
    with torch.no_grad():
        for n, (d, idx) in enumerate(sorted(by_dir.items())):
            if d == "":
                with model.disable_adapter():
                    for i in idx:
                        out[i] = fn(i)
            elif d == job["previous_adapter_dir"]:
                for i in idx:
                    out[i] = fn(i)
            else:
                name = f"frozen_{n}"
                model.load_adapter(d, adapter_name=name, is_trainable=False)
                model.set_adapter(name)
                for i in idx:
                    out[i] = fn(i)
                model.set_adapter("default")
                model.delete_adapter(name)
    return out
