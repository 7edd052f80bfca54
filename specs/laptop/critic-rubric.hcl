# Soft-rubric against freestyle critic prompts at laptop scale (the
# critics paper's prompt ablation): two critics on the same offline LLM
# and the same labelled pairs as critic-static.hcl, one whose system
# prompt gives the task's understanding and criteria (criteria/TASK.md,
# read as .Criteria for the task it judges) to score softly before the
# verdict, one with Assay's default (freestyle) prompt.
#
# The offline LLM judges from the request's payload and does not read the
# rendered prompt, so here the two critics differ only by their calls'
# seeds: the spec shows the ablation's shape, not the paper's effect; with
# a served model (the openai plugin) the prompts are what differs.
#
# Expected figures (assay estimate):
#   critic calls 32 pairs x (8 + 8) votes = 512
#   real runs    0

name        = "laptop-critic-rubric"
description = "soft-rubric against freestyle critic prompts on labelled pairs"
seed        = 1

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

role "rubric" {
  kind        = "critic"
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 1200
    out = 40
  }
  price {
    in  = 0
    out = 0
  }
  prompt {
    system       = "You judge whether the child proposal beats the parent on the task.\nTask understanding and criteria:\n{{.Criteria}}\nScore each criterion softly from 0 to 1 for the child against the parent, then give your verdict. Answer with a JSON object {\"label\": one of {{range $i, $l := .Labels}}{{if $i}}, {{end}}\"{{$l}}\"{{end}}, \"reason\": one sentence}. Reply with the JSON object only."
    criteria_dir = "criteria"
  }
}

role "free" {
  kind        = "critic"
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 40
  }
  price {
    in  = 0
    out = 0
  }
}

critic "rubric" {
  role      = role.rubric
  votes     = 8
  labels    = "3way"
  aggregate = "majority"
  tie       = "lose"
}

critic "free" {
  role      = role.free
  votes     = 8
  labels    = "3way"
  aggregate = "majority"
  tie       = "lose"
}

critic_eval "prompts" {
  data       = "data/quickstart-critic-pairs.jsonl"
  limit      = 32 # every pair of the file
  critics    = ["rubric", "free"]
  k          = [1, 8]
  thresholds = [0.25]
}

budget {
  usd = 1
}
