# Sourced by the end-to-end tests. Exit codes follow the automake
# convention: 0 pass, 77 skip, 99 harness failure, anything else failure.

set -u

: "${CUDATRACE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CUDATRACE_BUILD:=$CUDATRACE_SRCDIR/build}"
: "${CUDATRACE:=$CUDATRACE_BUILD/cudatrace}"
: "${CUDATRACE_FIXTURES:=$CUDATRACE_BUILD/fixtures}"
CT=$CUDATRACE
SRC=$CUDATRACE_SRCDIR
FIX=$CUDATRACE_FIXTURES
COMMITTED=$SRC/tests/fixtures/committed
CUDA_LIB64=${CUDA_LIB64:-/usr/local/cuda/lib64}

[ -x "$CT" ] || { echo "harness: $CT is not built"; exit 99; }

# A test run inside a batch job (sbatch, torchrun, mpirun) sees no job: the
# runs a test makes would otherwise be one job's ("1 job (2 runs)"), and
# tests/e2e/jobs sets the variables it means (cli/common/jobs.def).
unset TORCHELASTIC_RUN_ID OMPI_MCA_ess_base_jobid PMIX_NAMESPACE PMI_JOBID SLURM_JOB_ID \
	SLURM_STEP_ID PBS_JOBID LSB_JOBID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_RESTART_COUNT \
	TORCHELASTIC_RESTART_COUNT

T=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-test.XXXXXX") || exit 99
NB_COPY=
trap 'rm -rf "$T" ${NB_COPY:+"$NB_COPY"}' EXIT

# nobody_ready: root can act as the user nobody here (setpriv), and what
# nobody runs lies where nobody reaches it; NB is then the folder that holds
# it: cudatrace, libcudatrace.so, programs/ and examples/ (CT_NB is NB's
# cudatrace). The build of a clone under /root (mode 0700) is out of
# nobody's reach: then those are copied once into a folder of their own
# that nobody reaches, removed when the test ends. False (status 1) when
# nobody cannot be played here, so the caller skips that part.
NB=
CT_NB=
nobody_ready() {
	[ -n "$NB" ] && return 0
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null || return 1
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c '[ -x "$1" ] && [ -r "$2" ]' _ "$CT" "$CUDATRACE_BUILD/libcudatrace.so" 2>/dev/null; then
		NB=$CUDATRACE_BUILD
	else
		NB_COPY=$(mktemp -d /tmp/cudatrace-nobody.XXXXXX) || return 1
		cp -p "$CT" "$CUDATRACE_BUILD/libcudatrace.so" "$NB_COPY/" || return 1
		for d in programs examples; do
			[ -d "$CUDATRACE_BUILD/$d" ] && { cp -rp "$CUDATRACE_BUILD/$d" "$NB_COPY/" || return 1; }
		done
		chmod -R a+rX "$NB_COPY" && chmod 755 "$NB_COPY" || return 1
		NB=$NB_COPY
	fi
	CT_NB=$NB/cudatrace
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CT_NB" --version >/dev/null 2>&1
}
# cudatrace run's private trace folders go in the test's own: no test meets
# another's, nor those killed runs left in /tmp (run warns about them).
mkdir "$T/tmpdir" && export TMPDIR=$T/tmpdir || exit 99

failures=0

skip() {
	echo "skip: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

ok() {
	echo "ok: $*"
}

# Every JSON cudatrace writes in a test is checked against its schema
# (docs/schema/, tools/validate-json) when the test finishes: each --json
# document that run() sees (kept in $JSON_KEEP as TEST-N.json, the test's
# own names, so tests running side by side never meet), and every trace
# file and run record under $T, but those in the folders a test lists in
# json_forged (records it forged on purpose), and none when it sets
# JSON_TRACES=no. Without python3-jsonschema this is said, not failed;
# tests/e2e/json-schemas then skips.
JSON_KEEP=$CUDATRACE_BUILD/test-logs/json
JSON_TRACES=${JSON_TRACES:-yes}
json_test=$(basename "$(dirname "$0")")-$(basename "$0")
json_n=0
json_kept=()
json_forged=()

# json_keep CMD...: after run CMD, when CMD is cudatrace with --json,
# keeps what it wrote: stdout, or the FILE of run's --json FILE.
json_keep() {
	local a seen= sub= prev= json= file= src
	for a; do
		if [ -z "$seen" ]; then
			[ "$a" = "$CT" ] && seen=1
			continue
		fi
		[ "$a" = -- ] && break
		[ -z "$sub" ] && sub=$a
		[ "$prev" = --json ] && file=$a
		case $prev/$a in
		*/--json | --format/json | */--format=json) json=1 ;;
		esac
		prev=$a
	done
	case $sub in
	scan | check | ldd | why | doctor | report | ps | diff) src=$T/out ;;
	*) src=$file ;;
	esac
	[ -n "$json" ] && [ -n "$src" ] && [ -f "$src" ] && [ -s "$src" ] || return 0
	json_n=$((json_n + 1))
	mkdir -p "$JSON_KEEP" && cp "$src" "$JSON_KEEP/$json_test-$json_n.json" &&
		json_kept+=("$JSON_KEEP/$json_test-$json_n.json")
	return 0
}

# json_validate: the kept documents and the traces against their schemas.
json_validate() {
	local files=("${json_kept[@]}") f d r
	if [ "$JSON_TRACES" != no ]; then
		while IFS= read -r f; do
			for d in "${json_forged[@]}"; do
				case $f in "$d"/*) continue 2 ;; esac
			done
			files+=("$f")
		done < <(find "$T" -type f \( -name '*.jsonl' -o -name '*.run.json' \) 2>/dev/null | sort)
	fi
	[ ${#files[@]} -gt 0 ] || return 0
	/usr/bin/python3 "$SRC/tools/validate-json" "${files[@]}" >"$T/schema.out" 2>&1
	r=$?
	case $r in
	0) ok "${#files[@]} JSON documents and traces match their schemas (docs/schema/)" ;;
	77) echo "note: JSON not checked against docs/schema/: $(tail -n 1 "$T/schema.out")" ;;
	*)
		fail "JSON that does not match its schema (docs/schema/)"
		sed 's/^/  | /' "$T/schema.out" | head -30
		;;
	esac
}

# done: the test's verdict from the failures seen.
finish() {
	json_validate
	if [ "$failures" -gt 0 ]; then
		echo "$failures check(s) failed"
		exit 1
	fi
	exit 0
}

# run CMD...: runs it, keeping stdout in $T/out, stderr in $T/err, status in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	json_keep "$@"
}

# expect_rc N DESCRIPTION: the last run exited with N.
expect_rc() {
	if [ "$rc" -eq "$1" ]; then
		ok "$2 (exit $rc)"
	else
		fail "$2: exit $rc, expected $1"
		sed 's/^/  stdout| /' "$T/out" | head -20
		sed 's/^/  stderr| /' "$T/err" | head -20
	fi
}

# expect_grep PATTERN FILE DESCRIPTION
expect_grep() {
	if grep -qE -- "$1" "$2"; then
		ok "$3"
	else
		fail "$3: /$1/ not in $(basename "$2")"
		sed 's/^/  | /' "$2" | head -20
	fi
}

expect_no_grep() {
	if grep -qE -- "$1" "$2"; then
		fail "$3: /$1/ found in $(basename "$2")"
		grep -E -- "$1" "$2" | sed 's/^/  | /' | head -5
	else
		ok "$3"
	fi
}

# pycheck DESCRIPTION PYTHON: runs Python with the JSON of $T/out as `d`;
# the code asserts; any exception is a failure.
pycheck() {
	local desc=$1 code=$2
	if python3 - "$T/out" >"$T/py" 2>&1 <<EOF
import json, sys
d = json.load(open(sys.argv[1]))
$code
EOF
	then
		ok "$desc"
	else
		fail "$desc"
		sed 's/^/  | /' "$T/py" | tail -15
	fi
}

# replicate_ranks MODEL_DIR OUT_DIR FIRST N: ranks FIRST to FIRST+N-1 of
# a job into OUT_DIR, each a copy of the one trace (and run record) in
# MODEL_DIR with its own pid, host (4 ranks a host), image, run id, rank
# variables and start time, as `srun cudatrace -o DIR` leaves them.
replicate_ranks() {
	python3 - "$@" <<'PY'
import glob, json, os, sys
model, out, first, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
lines = [json.loads(l) for l in open(glob.glob(model + "/*.jsonl")[0]) if l.strip()]
runs = glob.glob(model + "/*.run.json")
run = json.loads(open(runs[0]).read()) if runs else None
pid0 = lines[0]["pid"]
for r in range(first, first + n):
    host, pid = "node%d" % (r // 4), 20000 + (r % 4) * 11 + (r // 4) % 3
    tag, runid = "%016x" % (0xabc000 + r), "%016x" % (0xdef000 + r)
    with open("%s/%s-%d-%s.jsonl" % (out, host, pid, tag), "w") as f:
        for rec in lines:
            rec = dict(rec)
            if rec.get("tid") == pid0:
                rec["tid"] = pid
            if "t" in rec:
                rec["t"] += r * 1000
            if rec["ev"] == "start":
                rec.update(pid=pid, ppid=pid - 1, host=host, image=tag, run=runid,
                           ranks={"RANK": str(r), "LOCAL_RANK": str(r % 4),
                                  "WORLD_SIZE": "64", "SLURM_PROCID": str(r)})
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    if run:
        rr = dict(run, run=runid, host=host)
        if "pid" in rr:
            rr["pid"] = pid
        with open("%s/%s-%d.run.json" % (out, host, pid - 1), "w") as f:
            f.write(json.dumps(rr) + "\n")
PY
}

need_fixtures() {
	[ -f "$FIX/multi.so" ] || skip "nvcc-built fixtures are missing (nvcc not found)"
}

find_cuobjdump() {
	if [ -n "${CUOBJDUMP:-}" ] && [ -x "$CUOBJDUMP" ]; then
		echo "$CUOBJDUMP"
	elif command -v cuobjdump >/dev/null 2>&1; then
		command -v cuobjdump
	elif [ -x "$CUDATRACE_BUILD/tools/cuobjdump/root/usr/bin/cuobjdump" ]; then
		echo "$CUDATRACE_BUILD/tools/cuobjdump/root/usr/bin/cuobjdump"
	fi
}
