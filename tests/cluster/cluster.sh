# shellcheck shell=bash
# Sourced by tests/cluster/inside: the two hosts of make check-cluster and
# the launchers on them, brought up and taken down. Runs as root inside the
# cluster's own pid and mount namespaces (tests/cluster/run made them),
# chrooted into the trixie root of tools/make-real-root --cluster.
#
#   node1 10.36.0.1  slurmctld, slurmd; the login node: the cases run here
#   node2 10.36.0.2  slurmd
#
# A host is a network, UTS and mount namespace, held by a `sleep` that
# cluster_up starts: its own name (uname -n, what cudatrace records), its
# own address (one veth pair joins the two) and its own /tmp; /shared (the
# trace folder of `srun cudatrace -o /shared/trace`) and /run (MUNGE's
# socket, Slurm's state) are the cluster's, seen by both. Nothing is
# written outside the namespaces but /opt/cudatrace's build: /run, /shared,
# /tmp, /etc/hosts and the hosts' /tmp are tmpfs or binds made here, gone
# with the mount namespace.
#
# One munged serves both hosts (its socket is in the shared /run);
# slurmctld and one slurmd per host run in the foreground, each entered
# into its host with nsenter, never `ip netns exec`: that remounts /sys
# and names a netns with a mount in /run/netns. Slurm tracks processes
# without cgroups (proctrack/linuxproc, task/none, CgroupPlugin=disabled).
#
# cluster_down stops them in order (scancel, scontrol shutdown, munged,
# the holders), each by its pid; what remains is killed with the pid
# namespace when tests/cluster/inside ends.

CLUSTER_STATE=/run/cudatrace-cluster
CLUSTER_HOSTS="node1 node2"
export SLURM_CONF=$CLUSTER_STATE/slurm/slurm.conf

cluster_log() {
	echo "cluster: $*" >&2
}

# The slots Slurm believes a host has (config_overrides: this machine has
# fewer CPUs than that): node2 is the smaller node, so that `srun -N2 -n4`
# puts ranks 0-2 on node1 and rank 3 on node2.
cluster_cpus() {
	case $1 in
	node1) echo 3 ;;
	node2) echo 1 ;;
	esac
}

cluster_addr() {
	case $1 in
	node1) echo 10.36.0.1 ;;
	node2) echo 10.36.0.2 ;;
	*) return 1 ;;
	esac
}

# The pid of the process that holds HOST's namespaces.
cluster_holder() {
	cat "$CLUSTER_STATE/hosts/$1.pid" 2>/dev/null
}

# on HOST CMD...: CMD on HOST (its network, name, mounts), in the current
# folder, as ssh HOST would run it; the environment is kept.
on() {
	local pid
	pid=$(cluster_holder "$1") || { echo "on: no host '$1'" >&2; return 125; }
	shift
	# Entering a mount namespace resets the root: -r keeps the holder's (the
	# chroot).
	nsenter -t "$pid" -n -u -m -r -- env -C "$PWD" "$@"
}

# A daemon: started in the background, its pid kept by name.
cluster_daemon() { # NAME HOST CMD...
	local name=$1 host=$2
	shift 2
	if [ "$host" = - ]; then
		"$@" >"$CLUSTER_STATE/log/$name.out" 2>&1 &
	else
		on "$host" "$@" >"$CLUSTER_STATE/log/$name.out" 2>&1 &
	fi
	echo $! >"$CLUSTER_STATE/pids/$name"
}

# wait_for SECONDS WHAT CMD...: until CMD succeeds.
wait_for() {
	local n=$(($1 * 5)) what=$2
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || { cluster_log "gave up waiting for $what"; return 1; }
		sleep 0.2
	done
}

cluster_up() {
	local h pid
	# The cluster's own /run, /shared and /tmp; the hosts' names.
	mount -t tmpfs -o mode=0755 cudatrace-cluster-run /run &&
		mount -t tmpfs -o mode=1777 cudatrace-cluster-shared /shared &&
		mount -t tmpfs -o mode=1777 cudatrace-cluster-tmp /tmp || return 1
	mkdir -p "$CLUSTER_STATE/hosts" "$CLUSTER_STATE/pids" "$CLUSTER_STATE/log" \
		"$CLUSTER_STATE/slurm/ctld" || return 1
	{
		echo "127.0.0.1 localhost"
		for h in $CLUSTER_HOSTS; do echo "$(cluster_addr "$h") $h"; done
	} >"$CLUSTER_STATE/hosts.txt" && mount --bind "$CLUSTER_STATE/hosts.txt" /etc/hosts || return 1

	# The hosts: each holder names its host, brings up its loopback and
	# mounts its own /tmp, then sleeps until cluster_down.
	for h in $CLUSTER_HOSTS; do
		unshare --net --uts --mount --propagation unchanged -- sh -c '
			hostname "$1" && ip link set lo up &&
				mount -t tmpfs -o mode=1777 "$1-tmp" /tmp &&
				mkdir -p "/run/cudatrace-cluster/slurm/$1" || exit 1
			exec sleep infinity' holder "$h" &
		echo $! >"$CLUSTER_STATE/hosts/$h.pid"
	done
	for h in $CLUSTER_HOSTS; do
		wait_for 10 "host $h" sh -c '[ "$(nsenter -t "$1" -u hostname)" = "$2" ] &&
			[ -d "/run/cudatrace-cluster/slurm/$2" ]' _ "$(cluster_holder "$h")" "$h" || return 1
	done
	# What tests/cluster/run looks for afterwards: none may be left.
	{
		readlink /proc/self/ns/pid
		readlink /proc/self/ns/mnt
		for h in $CLUSTER_HOSTS; do
			for ns in net uts mnt; do readlink "/proc/$(cluster_holder "$h")/ns/$ns"; done
		done
	} >"${CLUSTER_LOGS:-$CLUSTER_STATE}/namespaces"
	# The wire between them.
	ip link add name eth0 netns "$(cluster_holder node1)" type veth \
		peer name eth0 netns "$(cluster_holder node2)" || return 1
	for h in $CLUSTER_HOSTS; do
		on "$h" ip addr add "$(cluster_addr "$h")/24" dev eth0 &&
			on "$h" ip link set eth0 up || return 1
	done

	# MUNGE: one daemon for both hosts, as its user, with the root's key.
	mkdir -p /run/munge && chown munge:munge /run/munge || return 1
	cluster_daemon munged - setpriv --reuid=munge --regid=munge --init-groups \
		munged --foreground --log-file="$CLUSTER_STATE/log/munged.log" \
		--pid-file=/run/munge/munged.pid --seed-file=/run/munge/seed || return 1
	wait_for 10 munged sh -c 'munge -n | unmunge' || return 1

	cluster_slurm_conf || return 1
	cluster_daemon slurmctld node1 slurmctld -D -i || return 1
	wait_for 30 slurmctld on node1 scontrol ping || return 1
	for h in $CLUSTER_HOSTS; do
		cluster_daemon "slurmd-$h" "$h" slurmd -D -N "$h" || return 1
	done
	wait_for 60 "both hosts idle in sinfo" cluster_idle || return 1
	cluster_log "up: $(on node1 sinfo -h -N -o '%N %T %c' | tr '\n' ' ')"
}

# Both nodes idle.
cluster_idle() {
	[ "$(on node1 sinfo -h -N -o '%T' | sort -u)" = idle ]
}

cluster_slurm_conf() {
	local d=$CLUSTER_STATE/slurm h
	{
		cat <<EOF
ClusterName=cudatrace
SlurmctldHost=node1($(cluster_addr node1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$CLUSTER_STATE/log/slurmctld.log
SlurmdLogFile=$CLUSTER_STATE/log/slurmd-%n.log
SlurmctldParameters=enable_configless
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
MpiDefault=none
TaskProlog=$d/task_prolog
ReturnToService=2
KillWait=10
MinJobAge=600
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
FirstJobId=4240
EOF
		for h in $CLUSTER_HOSTS; do
			echo "NodeName=$h NodeAddr=$(cluster_addr "$h") CPUs=$(cluster_cpus "$h") RealMemory=1000 State=UNKNOWN"
		done
		echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$d/slurm.conf" &&
		echo "CgroupPlugin=disabled" >"$d/cgroup.conf" || return 1
	# The site's task prolog, the same on every host: it loads the modules
	# a host's file in modules/ names (cluster_module), as a site loads a
	# module on some nodes only. slurmstepd applies its "export" lines.
	mkdir -p "$d/modules" && cat >"$d/task_prolog" <<EOF && chmod 755 "$d/task_prolog"
#!/bin/sh
cat "$d/modules/\$(hostname)" 2>/dev/null
exit 0
EOF
}

# cluster_module HOST [NAME=VALUE...]: what the task prolog exports on
# HOST, from now on, to every task Slurm starts there; none: nothing.
cluster_module() {
	local f=$CLUSTER_STATE/slurm/modules/$1
	shift
	if [ $# -eq 0 ]; then
		rm -f "$f"
	else
		printf 'export %s\n' "$@" >"$f"
	fi
}

# The daemon NAME's pid, when it still runs.
cluster_pid() {
	local pid
	pid=$(cat "$CLUSTER_STATE/pids/$1" 2>/dev/null) && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Stops NAME by its pid: TERM, then KILL after SECONDS.
cluster_stop() { # NAME SECONDS
	local pid n
	pid=$(cluster_pid "$1") || return 0
	kill -TERM "$pid" 2>/dev/null
	n=$(($2 * 5))
	while kill -0 "$pid" 2>/dev/null && [ "$n" -gt 0 ]; do
		sleep 0.2
		n=$((n - 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		cluster_log "$1 (pid $pid) did not stop on SIGTERM: killed"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

cluster_down() {
	local h
	if cluster_pid slurmctld >/dev/null; then
		on node1 scancel --full --user=root 2>/dev/null
		wait_for 30 "the jobs to end" on node1 sh -c '[ -z "$(squeue -h)" ]'
		on node1 scontrol shutdown >/dev/null 2>&1
	fi
	for h in $CLUSTER_HOSTS; do cluster_stop "slurmd-$h" 20; done
	cluster_stop slurmctld 20
	cluster_stop munged 10
	for h in $CLUSTER_HOSTS; do
		pid=$(cluster_holder "$h") && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	return 0
}
