#!/usr/bin/env bash
# Stops the cluster .ci/slurm-up.sh started, by its pid files (never by
# process name: other clusters or daemons may share the machine).
set -uo pipefail

dir=${ASSAY_SLURM_DIR:-/tmp/assay-slurm}

stop() { # pidfile
	[ -s "$1" ] || return 0
	local pid
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null || return 0
	# Reaping is slow here; a stopped daemon may linger briefly as a zombie.
	for _ in $(seq 50); do
		[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = "" ] && break
		[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
		sleep 0.1
	done
	rm -f "$1"
}

stop "$dir/slurmd.pid"
stop "$dir/slurmctld.pid"
if [ -e "$dir/munged.ours" ]; then
	stop /run/munge/munged.pid
	rm -f "$dir/munged.ours"
fi
exit 0
