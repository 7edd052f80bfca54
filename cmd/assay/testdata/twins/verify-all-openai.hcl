# The code-change verify-all twin (specs/laptop/code/verify-all.hcl) with
# its proposer and implementer served by the openai plugin from an
# OpenAI-compatible server at var.base_url, in place of the built-in
# offline LLM. cmd/assay/testdata/script/twin_openai.txtar runs it against
# the local OpenAI-compatible test server, so CI runs a twin over real
# HTTP. The twin imports examples/suite where it is, so nothing needs
# preparing; the prompts' token bounds are real.hcl's (docs/real-path.md),
# since the openai plugin refuses a longer prompt rather than cut it.
#
# Expected figures (assay estimate): as verify-all.hcl, 12 real runs at
# most.

extends = "../../../../specs/laptop/code/verify-all.hcl"

name        = "laptop-code-verify-all-openai"
description = "the code-change verify-all twin, its proposer and implementer served by an OpenAI-compatible server"

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8000/v1"
}

plugin "vllm" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = var.base_url }
}

role "proposer" {
  llm   = plugin.vllm
  model = "Qwen/Qwen2.5-7B-Instruct"
  # The proposer is shown train.go and model.go whole: some 11,000 tokens.
  tokens {
    in  = 16000
    out = 400
  }
}

role "implementer" {
  llm   = plugin.vllm
  model = "Qwen/Qwen2.5-7B-Instruct"
  tokens {
    in  = 16000
    out = 2000
  }
}
