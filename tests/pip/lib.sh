# shellcheck shell=bash disable=SC2034
# Sourced by the scenarios of tests/pip: the helpers of tests/e2e/lib.sh
# (skip, fail, ok, finish, expect_rc, expect_grep, expect_no_grep,
# pycheck), with the venvs of tools/make-pip-venvs.
#
#   VENVS                 the venvs' folder; $VENVS/NAME/bin/python each
#   site NAME             a venv's site-packages
#   DRV550                Debian's real libcuda.so.1 550, its folder
#   machine KIND          what the next commands see of this machine, in a
#                         private mount namespace (unshare): "bare" (the
#                         default): an ld.so.cache and ld.so.conf.d without
#                         any CUDA folder, and every /usr/local/cuda-*
#                         hidden (empty): a machine with no CUDA but the
#                         wheels; "driver550": the same, with the 550
#                         driver's folder in ld.so.conf.d and the cache, as
#                         its Debian package installs it; "driver550-nolink":
#                         the same without the unversioned libcuda.so link
#                         (its folder: DRV550_NOLINK); "host": this
#                         machine as it is (its CUDA 13 toolkit in
#                         /usr/local/cuda-13.0 and in ld.so.cache)
#   ct NAME [VAR=VALUE...] -- COMMAND...
#                         cudatrace -o $T/NAME -- COMMAND, with those
#                         variables: stdout in $T/out, stderr (the
#                         program's, then the report) in $T/err, status in
#                         $rc; the command and both outputs go to the log
#   ctx NAME [VAR=VALUE...] -- SUBCOMMAND ARG...
#                         the same for doctor, scan, check, why, ldd...
#   findings CODE         the report's findings with that code, into $T/finding
#   first_finding         the first finding's first line, into $first
#   need_cuobjdump        $CUOBJDUMP, NVIDIA's cuobjdump 12.4; skips without

: "${CUDATRACE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CUDATRACE_PIP_DIR:=/var/cache/cudatrace-tests/pip}"
: "${CUDATRACE_PIP_MACHINE:=${CUDATRACE_BUILD:-$CUDATRACE_SRCDIR/build}/pip-logs/machine}"
P=$CUDATRACE_PIP_DIR
VENVS=$P/venvs
DRV550=$P/libcuda1/root/usr/lib/x86_64-linux-gnu/nvidia/current
MACHINE_FILES=$CUDATRACE_PIP_MACHINE
DRV550_NOLINK=$MACHINE_FILES/driver550-nolink/nvidia

if [ ! -f "$VENVS/torch/.cudatrace-venv" ]; then
	echo "skip: no venvs in $VENVS (make check-pip builds them: tools/make-pip-venvs)"
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: a private mount namespace (the machine without CUDA) needs root"
	exit 77
fi
if [ ! -f "$MACHINE_FILES/bare/ld.so.cache" ]; then
	echo "skip: no machine files in $MACHINE_FILES (tests/pip/run makes them)"
	exit 77
fi

. "$CUDATRACE_SRCDIR/tests/e2e/lib.sh"

site() {
	echo "$VENVS/$1/lib/python3.11/site-packages"
}

MACHINE=bare
machine() {
	case $1 in
	bare | driver550 | driver550-nolink | host) MACHINE=$1 ;;
	*) echo "harness: no machine '$1'"; exit 99 ;;
	esac
}

# inns CMD...: CMD on the machine MACHINE (see above).
inns() {
	if [ "$MACHINE" = host ]; then
		"$@"
		return
	fi
	unshare --mount --propagation private sh -c '
		m=$1
		shift
		mount --bind "$m/ld.so.cache" /etc/ld.so.cache &&
			mount --bind "$m/ld.so.conf.d" /etc/ld.so.conf.d || exit 99
		for d in /usr/local/cuda-*; do
			[ -d "$d" ] && [ ! -L "$d" ] || continue
			mount -t tmpfs -o ro,size=4k cudatrace-hidden "$d" || exit 99
		done
		exec "$@"' inns "$MACHINE_FILES/$MACHINE" "$@"
}

# ct, ctx and findings (tests/bed.sh), on the machine MACHINE; ctx's
# JSON documents are kept to be checked against their schemas.
bed_run() {
	inns "$@"
}
bed_label() {
	echo "machine: $MACHINE"
}
bed_after_untraced() {
	json_keep "$CT" "$@"
}
BED_CT=$CT
BED_TRACES=$T
. "$CUDATRACE_SRCDIR/tests/bed.sh"

# The first finding of the report (its severity, code and message).
first_finding() {
	first=$(grep -m 1 -E '^(error|warning|info) [a-z-]+: ' "$T/err")
}

need_cuobjdump() {
	CUOBJDUMP=$(find_cuobjdump)
	[ -n "$CUOBJDUMP" ] ||
		skip "cuobjdump not found (set CUOBJDUMP, or run tools/get-cuobjdump build/tools/cuobjdump)"
}

# torch's own pins, from its METADATA: the version of DIST it requires.
torch_requires() {
	sed -n "s/^Requires-Dist: $1==\([^ ;]*\).*/\1/p" "$(site torch)"/torch-*.dist-info/METADATA | head -n 1
}
