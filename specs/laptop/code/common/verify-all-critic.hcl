# verify-all.hcl with the two roles a laptop critic needs: the summarizer
# and the critic itself, both on the built-in offline LLM.
# critic-grpo.hcl and critic-only.hcl extend it and add the critic, its
# reward and the loop's changes. Not a spec to run alone: nothing here
# uses the roles.

extends = "../verify-all.hcl"

role "summarizer" {
  llm         = plugin.offline
  temperature = 0.4
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 300
    out = 80
  }
  price {
    in  = 0
    out = 0
  }
}

role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 20
  }
  price {
    in  = 0
    out = 0
  }
}
