# shellcheck shell=bash disable=SC2034
# Sourced by the cases of tests/cluster, which tests/cluster/inside runs in
# the cluster (cluster.sh: node1 and node2, Slurm, MUNGE): the helpers of
# tests/e2e/lib.sh (skip, fail, ok, finish, expect_rc, expect_grep,
# expect_no_grep, pycheck; $T is in the cluster's /tmp, which no host sees)
# and these:
#
#   $TR                 the case's trace folder, /shared/trace/CASE: what
#                       `srun cudatrace -o /shared/trace` writes to, seen
#                       by both hosts
#   $PY $TRAIN          the ranks' program: /usr/bin/python3 (never a
#                       shim of pyenv's: one srun of a shim is hundreds of
#                       traced processes) and tests/cluster/src/train.py
#   $MODULE             the module every rank loads (cuDNN 9, which
#                       libtorch_cuda needs): LD_LIBRARY_PATH=$MODULE
#   sh_on HOST NAME [VAR=VALUE...] -- CMD...
#                       CMD on HOST as ssh would run it (a login's
#                       environment, and those variables), in $T: stdout
#                       in $T/out, stderr in $T/err, exit status in $rc;
#                       the command and its output go to the log
#   report NAME ARG...  cudatrace report ARG... on node1, the same way
#   submit NAME [VAR=VALUE...] SBATCH_ARG... -- SCRIPT
#                       sbatch on node1 of SCRIPT (a batch script's text);
#                       $JOB is the job id sbatch printed
#   job_wait JOB [SECONDS]   until Slurm has finished JOB (all its tasks)
#   job_out JOB         the job's output (sbatch -o /shared/out/%j.out), logged
#   rank_pids JSONFILE  "rank host pid" of each process of a report --json
#   hide_on HOST FILE...    FILE (a library) is not on HOST: an overlay of
#                       its folder with a whiteout, in HOST's mount
#                       namespace only, until unhide_on HOST or the end
#   traces_checked      the case's trace files and run records join the
#                       documents checked against docs/schema/ (finish)
: "${CLUSTER_CASE:=$(basename "$0")}"
CUDATRACE_SRCDIR=/opt/cudatrace
CUDATRACE_BUILD=/opt/cudatrace/build
export CUDATRACE_SRCDIR CUDATRACE_BUILD
. /opt/cudatrace/tests/cluster/cluster.sh
[ -n "$(cluster_holder node1)" ] || { echo "skip: not inside the cluster (tests/cluster/run)"; exit 77; }
. /opt/cudatrace/tests/e2e/lib.sh
chmod 755 "$T"

PY=/usr/bin/python3
TRAIN=/opt/cudatrace/tests/cluster/src/train.py
MODULE=/opt/cudnn9-cuda13/lib
TR=/shared/trace/$CLUSTER_CASE
mkdir -p /shared/trace /shared/out /shared/jobs || exit 99
rm -rf "$TR"

# The environment of a login on a host.
LOGIN_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
	LANG=C.UTF-8 "SLURM_CONF=$SLURM_CONF" NO_COLOR=1)

sh_on() {
	local host=$1 name=$2 vars=() shown
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	(cd /shared && on "$host" env -i "${LOGIN_ENV[@]}" "${vars[@]}" "$@") >"$T/out" 2>"$T/err"
	rc=$?
	json_keep "$@"
	shown=$(for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./:=,+@%-]* | '') printf " '%s'" "${a//\'/\'\\\'\'}" ;;
		*) printf ' %s' "$a" ;;
		esac
	done)
	shown=${shown//$CT/cudatrace}
	{
		echo "== $name (on $host)"
		echo "$host\$ ${vars[*]:+${vars[*]} }${shown# }"
		cat "$T/out" "$T/err"
		echo "(exit $rc)"
		echo "=="
	} | sed 's/^/    /'
}

# bg_on HOST NAME [VAR=VALUE...] -- CMD...: sh_on in the background (the
# second torchrun agent); bg_wait NAME waits for it and logs it as sh_on
# does, its outputs in $T/NAME.out and $T/NAME.err, its status in $rc.
declare -A BG_PID BG_CMD
bg_on() {
	local host=$1 name=$2 vars=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	(cd /shared && on "$host" env -i "${LOGIN_ENV[@]}" "${vars[@]}" "$@") \
		>"$T/$name.out" 2>"$T/$name.err" &
	BG_PID[$name]=$!
	BG_CMD[$name]="$host\$ ${vars[*]:+${vars[*]} }$*"
}

bg_wait() {
	wait "${BG_PID[$1]}"
	rc=$?
	{
		echo "== $1 (in the background)"
		echo "${BG_CMD[$1]//$CT/cudatrace}"
		cat "$T/$1.out" "$T/$1.err"
		echo "(exit $rc)"
		echo "=="
	} | sed 's/^/    /'
}

report() {
	local name=$1
	shift
	sh_on node1 "$name" -- "$CT" report "$@"
}

submit() {
	local name=$1 vars=() args=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		[A-Z_]*=*) vars+=("$1") ;;
		*) args+=("$1") ;;
		esac
		shift
	done
	shift
	printf '%s\n' "$1" >"/shared/jobs/$CLUSTER_CASE-$name.sh"
	echo "    == the batch script $name:"
	sed 's/^/    | /' "/shared/jobs/$CLUSTER_CASE-$name.sh"
	sh_on node1 "$name" "${vars[@]}" -- sbatch --parsable -o '/shared/out/%j.out' "${args[@]}" \
		"/shared/jobs/$CLUSTER_CASE-$name.sh"
	JOB=$(head -n 1 "$T/out" | cut -d';' -f1)
	case $JOB in
	'' | *[!0-9]*) echo "harness: sbatch printed no job id"; exit 99 ;;
	esac
}

job_wait() {
	wait_for "${2:-300}" "job $1" on node1 env -i "${LOGIN_ENV[@]}" sh -c '
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]' _ "$1" ||
		{ echo "harness: job $1 did not end in ${2:-300}s"; exit 99; }
}

job_out() {
	local f
	for f in /shared/out/"$1".out /shared/out/"$1"_*.out; do
		[ -f "$f" ] || continue
		echo "    == output of job ${f##*/}"
		sed 's/^/    | /' "$f"
	done
}

rank_pids() {
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    print(p.get("rank"), p.get("host"), p.get("pid"))' "$1"
}

hide_on() {
	local host=$1 dir f up
	shift
	dir=$(dirname "$1")
	up=/tmp/hidden-$(echo "$dir" | tr / _)
	on "$host" sh -c 'mkdir -p "$1/upper" "$1/work"' _ "$up" || exit 99
	for f; do
		on "$host" mknod "$up/upper/$(basename "$f")" c 0 0 || exit 99
	done
	on "$host" mount -t overlay hidden -o "lowerdir=$dir,upperdir=$up/upper,workdir=$up/work" "$dir" ||
		{ echo "harness: cannot hide $* on $host (overlay)"; exit 99; }
	HIDDEN+=("$host:$dir")
	echo "    == $host: $(printf '%s ' "$@")hidden (an overlay of $dir)"
}
HIDDEN=()

unhide_on() {
	local h
	# slurmstepd of a step that just ended may still map a library
	# through the overlay: a few seconds, then lazily.
	for h in "${HIDDEN[@]}"; do
		wait_for 10 "the overlay of ${h#*:} on ${h%%:*} to be free" on "${h%%:*}" umount "${h#*:}" 2>/dev/null ||
			on "${h%%:*}" umount -l "${h#*:}"
	done
	HIDDEN=()
}
trap 'unhide_on; rm -rf "$T"' EXIT

traces_checked() {
	local f
	while IFS= read -r f; do json_kept+=("$f"); done < <(find "$TR" -type f \( -name '*.jsonl' -o -name '*.run.json' \) | sort)
}

# need_trace CASE: the traces another case left (its -report reads them):
# $S is its folder; skips when that case did not run first.
need_trace() {
	S=/shared/trace/$1
	[ -n "$(ls "$S"/*.run.json 2>/dev/null)" ] ||
		skip "no trace of tests/cluster/$1 (run it first: tests/cluster/run BUILD $1 $CLUSTER_CASE)"
}

# report_json NAME ARG...: report --json ARG... on node1, kept in $T/NAME.json
# (the log gets its exit status, not the document).
report_json() {
	local name=$1
	shift
	(cd /shared && on node1 env -i "${LOGIN_ENV[@]}" "$CT" report --json "$@") \
		>"$T/$name.json" 2>"$T/err"
	rc=$?
	cp "$T/$name.json" "$T/out" && json_keep "$CT" report --json
	echo "    == $name: cudatrace report --json $* (exit $rc, $(wc -c <"$T/$name.json") bytes)"
}

# finding CODE TEXTFILE: the text of the report's findings with that code,
# into $T/finding (tests/real/lib.sh's findings, on any file).
finding() {
	awk -v c="$1" '$0 ~ "^(error|warning|info) " c ":" { on = 1 }
		on { print } on && /^$/ { on = 0 }' "$2" >"$T/finding"
}

# truth DIR: what the launchers said, from the run records and start
# records of DIR (not from the report): one line per run's program,
# "PID HOST RANK JOB", the rank from the launcher that started the ranks
# (OMPI_COMM_WORLD_RANK, PMIX_RANK, RANK, then SLURM_PROCID).
truth() {
	python3 - "$1" <<'PY'
import glob, json, sys
d = sys.argv[1]
recs = {r["run"]: r for r in (json.load(open(f)) for f in glob.glob(d + "/*.run.json"))}
for f in sorted(glob.glob(d + "/*.jsonl")):
    s = json.loads(open(f).readline())
    r = recs.get(s.get("run"))
    if not r or s["pid"] != r["pid"]:
        continue
    k = s.get("ranks", {})
    rank = next((k[v] for v in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "RANK", "SLURM_PROCID") if v in k), "-")
    print(s["pid"], r["host"], rank, r.get("job", "-"))
PY
}

# ranks_words TRUTHFILE [PID...]: the processes of truth's lines but those
# PIDs, as a report says where something was seen: "ranks 1 and 2 on
# node1", "rank 3 on node2", hosts in order, ranks ascending.
ranks_words() {
	python3 - "$@" <<'PY'
import sys
skip = set(sys.argv[2:])
by = {}
for line in open(sys.argv[1]):
    pid, host, rank, _ = line.split()
    if pid not in skip:
        by.setdefault(host, []).append(int(rank))
def words(rs):
    rs = sorted(rs)
    if len(rs) == 1:
        return "rank %d" % rs[0]
    return "ranks " + ", ".join(map(str, rs[:-1])) + " and %d" % rs[-1]
print(", ".join("%s on %s" % (words(by[h]), h) for h in sorted(by)))
PY
}
