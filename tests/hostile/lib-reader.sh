# Sourced by the reader's hostile tests (tests/hostile/reader-*): traces
# made to exhaust the reader, and a way to run cudatrace on them with
# bounds on time and memory that no correct reader comes near.
. "$(dirname "$0")/lib.sh"

# Built with AddressSanitizer? It reserves terabytes of address space,
# so there the bound is on the peak resident set instead of ulimit -v.
asan=0
if nm "$CT" 2>/dev/null | grep -q __asan_init; then
	asan=1
fi

# bounded SECONDS MIB CMD...: run CMD (stdout in $T/out, stderr in $T/err),
# killed after SECONDS, with at most MIB MiB of address space (or of
# resident memory under ASan). Sets rc (124: killed by the timeout) and
# peak (the peak resident set, MiB).
bounded() {
	python3 - "$1" "$2" "$asan" "$T" "${@:3}" <<'PY'
import os, resource, subprocess, sys, time
secs, mib, asan, tmp, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4], sys.argv[5:]
def limit():
    if not asan:
        resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
with open(tmp + "/out", "wb") as out, open(tmp + "/err", "wb") as err:
    p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=limit)
    end, killed = time.monotonic() + secs, False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > end and not killed:
            p.kill()
            killed = True
        time.sleep(0.05)
rc = 124 if killed else os.waitstatus_to_exitcode(status)
if rc < 0:
    rc = 128 - rc
peak = ru.ru_maxrss // 1024
if asan and peak > mib:
    rc = 137
open(tmp + "/bounded", "w").write("%d %d\n" % (rc, peak))
PY
	read -r rc peak <"$T/bounded"
}

# expect_bounded DESCRIPTION: the last bounded run ended by itself, within
# its bounds, with a report (exit 0 or 1: findings), not a crash.
expect_bounded() {
	case $rc in
	0 | 1) ok "$1 (exit $rc, peak ${peak} MiB)" ;;
	124) fail "$1: still running at the time limit (peak ${peak} MiB)" ;;
	*)
		fail "$1: exit $rc (peak ${peak} MiB)"
		tail -n 5 "$T/err" | sed 's/^/  stderr| /'
		;;
	esac
}

# record JSON...: one record per argument, as lines.
start_record() { # start_record PID: a start record of process PID
	printf '{"ev":"start","t":%s,"tid":%s,"v":1,"pid":%s,"ppid":1,"host":"h","image":"%016x","auditor":true,"exe":"/usr/bin/prog","argv":["prog"]}\n' \
		"$1" "$1" "$1" "$1"
}
