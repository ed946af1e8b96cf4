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

T=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

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

# done: the test's verdict from the failures seen.
finish() {
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
