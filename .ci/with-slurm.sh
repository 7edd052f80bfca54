#!/usr/bin/env bash
# Runs a command with the single-node Slurm cluster up, and stops the
# cluster when the command ends however it ends:
#   .ci/with-slurm.sh go test ./...
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
trap '"$here/slurm-down.sh"' EXIT
"$here/slurm-up.sh"
"$@"
