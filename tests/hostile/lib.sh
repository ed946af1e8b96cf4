# Sourced by the hostile tests (tests/hostile/*): the hostile user, who
# plants links, FIFOs and forged records where cudatrace writes and reads,
# and the unlucky one (full disks, huge environments, racing forks). Each
# case is one way cudatrace failed once; it must fail before its fix.
# The helpers of tests/e2e/lib.sh (the --json documents checked against
# their schemas; not the traces, which these tests forge), and:
JSON_TRACES=no
. "$(dirname "$0")/../e2e/lib.sh"

# as_nobody CMD...: run CMD as the unprivileged user nobody (root only).
# can_be_nobody: whether this can be done here, so the caller can skip that
# part; it is nobody_ready (tests/e2e/lib.sh): what nobody runs comes from
# $NB ($CT_NB), which nobody reaches even when the build does not.
can_be_nobody() {
	nobody_ready
}
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
}

# with_timeout SECONDS CMD...: run CMD, killed after SECONDS; rc 124 when it hung.
with_timeout() {
	local s=$1
	shift
	timeout -s KILL "$s" "$@"
	local r=$?
	[ "$r" = 137 ] && r=124
	return "$r"
}
