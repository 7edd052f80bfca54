#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine for the integration
# tests (Debian, run as root, no systemd). Installs slurm-wlm and munge when
# they are missing, writes slurm.conf from `slurmd -C`, starts munged,
# slurmctld and slurmd, and waits until the node is idle. State, logs and pid
# files live under $ASSAY_SLURM_DIR (default /tmp/assay-slurm); .ci/slurm-down.sh
# stops what this script started, by those pid files.
set -euo pipefail

dir=${ASSAY_SLURM_DIR:-/tmp/assay-slurm}
conf=/etc/slurm/slurm.conf

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

# A test cluster starts empty: jobs recovered from an earlier cluster's state
# (a run stopped mid-test) would keep the node busy and write into folders
# that are gone.
rm -rf "$dir/state" "$dir/spool"
mkdir -p "$dir/state" "$dir/spool" /etc/slurm

# munge: the key must exist and belong to munge; munged must run as munge.
mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
chmod 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	runuser -u munge -- munged
	touch "$dir/munged.ours"
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
fi

# The node's hardware line as slurmd sees it; a guessed one drains the node.
node=$(slurmd -C | head -n1)
name=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$node")
hw=$(sed 's/^NodeName=[^ ]* //' <<<"$node")

cat >"$conf" <<CONF
# Written by .ci/slurm-up.sh: a single-node test cluster.
ClusterName=assay
SlurmctldHost=$name
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# cgroups do not work in containers; these do.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Start batch jobs at once, and keep finished jobs visible to scontrol.
SchedulerParameters=batch_sched_delay=0
MinJobAge=86400
# Stand-in GPUs: a run with run_cost.gpus = N > 0 asks for --gres=gpu:N (one
# with gpus = 0 asks for none), and the specs the tests run declare GPUs, so
# the node advertises 8, backed by character devices that are copies of
# /dev/null (slurmd insists on device files; nothing opens them).
GresTypes=gpu
NodeName=$name $hw Gres=gpu:8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

mkdir -p "$dir/dev"
for i in 0 1 2 3 4 5 6 7; do
	[ -c "$dir/dev/gpu$i" ] || mknod "$dir/dev/gpu$i" c 1 3
done
cat >/etc/slurm/gres.conf <<GRES
# Written by .ci/slurm-up.sh: stand-in GPUs for the test node.
NodeName=$name Name=gpu File=$dir/dev/gpu[0-7]
GRES

slurmctld -c -i
slurmd

for _ in $(seq 100); do
	state=$(sinfo -h -N -o %t 2>/dev/null | head -n1 || true)
	if [ "$state" = idle ]; then
		echo "slurm: node $name idle"
		exit 0
	fi
	sleep 0.1
done
echo "slurm: node $name did not become idle (state '${state:-}')" >&2
tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
