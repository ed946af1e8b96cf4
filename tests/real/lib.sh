# shellcheck shell=bash disable=SC2034
# Sourced by the scenarios of tests/real: the helpers of tests/e2e/lib.sh
# (skip, fail, ok, finish, expect_rc, expect_grep, expect_no_grep,
# pycheck), with cudatrace and the scratch folder $T inside the trixie
# root of tools/make-real-root. $RT is $T as the root sees it.
#
#   inroot CMD...          runs CMD chrooted in the root (tools/in-root)
#   ct NAME [VAR=VALUE...] -- COMMAND...
#                          cudatrace -o $RT/NAME -- COMMAND inside the root,
#                          with those variables set: stdout in $T/out,
#                          stderr (the program's, then the report) in
#                          $T/err, exit status in $rc. The command and both
#                          outputs go to the scenario's log as well.
#   ctx NAME [VAR=VALUE...] -- SUBCOMMAND ARG...
#                          the same for cudatrace check, why, ldd...
#   findings CODE          the report's findings with that code, into $T/finding
#   need_cuda13 FILE       skips unless this machine's CUDA 13 toolkit has
#                          lib64/FILE; binds the toolkit at its own path
#   need_cudnn13           skips unless the root has the CUDA 13 cuDNN

: "${CUDATRACE_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CUDATRACE_REAL_ROOT:=/var/cache/cudatrace-tests/trixie-torch}"
R=$CUDATRACE_REAL_ROOT
CT_IN=/opt/cudatrace/build/cudatrace
CUDA13=${CUDA13:-/usr/local/cuda-13.0}

# What the root holds (tools/make-real-root).
CUDNN13=/opt/cudnn9-cuda13/lib
DRV550=/opt/nvidia-550/lib
TORCH_CUDA=/usr/lib/x86_64-linux-gnu/libtorch_cuda.so.2.6

if [ ! -f "$R/.cudatrace-real-root" ] || [ ! -x "$R$CT_IN" ]; then
	echo "skip: no trixie root with cudatrace built in it at $R (make check-real builds it)"
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: entering the root needs root"
	exit 77
fi

mkdir -p "$R/tmp" || exit 99
export CUDATRACE="$R$CT_IN"
TMPDIR=$R/tmp
. "$CUDATRACE_SRCDIR/tests/e2e/lib.sh"
RT=${T#"$R"}
chmod 755 "$T"
IN_ROOT_BIND=
export IN_ROOT_BIND

inroot() {
	"$SRC/tools/in-root" "$R" "$@"
}

need_cuda13() {
	[ -e "$CUDA13/lib64/$1" ] || skip "this machine has no CUDA 13 toolkit with lib64/$1 ($CUDA13)"
	IN_ROOT_BIND="$CUDA13"
}

need_cudnn13() {
	[ -e "$R$CUDNN13/libcudnn.so.9" ] ||
		skip "the root has no cuDNN for CUDA 13 in $CUDNN13 (no $CUDA13/lib64 when it was built)"
}

# ct, ctx and findings (tests/bed.sh), in the root.
bed_run() {
	inroot "$@"
}
BED_CT=$CT_IN
BED_TRACES=$RT
. "$CUDATRACE_SRCDIR/tests/bed.sh"

# build_old_ext: the extension of src/oldtorch_ext.cpp, built in the root
# against the old libc10_cuda of src/old_c10_cuda.cpp, as $RT/ext/oldtorch_ext.so.
build_old_ext() {
	mkdir -p "$T/ext/stub" && cp "$SRC"/tests/real/src/old_c10_cuda.cpp \
		"$SRC"/tests/real/src/oldtorch_ext.cpp "$T/ext/" || exit 99
	inroot g++ -shared -fPIC -Wl,-soname,libc10_cuda.so.2.6 -o "$RT/ext/stub/libc10_cuda.so.2.6" \
		"$RT/ext/old_c10_cuda.cpp" &&
		inroot g++ -shared -fPIC -Wl,-z,lazy -o "$RT/ext/oldtorch_ext.so" \
			"$RT/ext/oldtorch_ext.cpp" "$RT/ext/stub/libc10_cuda.so.2.6" ||
		{ echo "harness: cannot build the extension in the root"; exit 99; }
	rm -rf "$T/ext/stub"
}

# need_real_builds: the third-party CUDA builds of Debian and PyPI
# (tools/get-real-builds, fetched once into
# /var/cache/cudatrace-tests/real-builds), bound read-only at $RB in the
# root; skips when they cannot be fetched. Sets REAL_BUILD_FILES: every ELF
# file of those packages and wheels (the unpacked wheels, not the .whl) and
# the bare PTX file of gpu-burn, then trixie's cuBLAS 12.4, cuFFT 11.2 and
# NCCL 2.22, which the root has (python3-torch-cuda installs them), all as
# the root sees them. BW is bookworm's unpacked root, PYPI the wheels'
# folder, both as the root sees them.
RB=/opt/real-builds
BW=$RB/bookworm/root
PYPI=$RB/pypi
need_real_builds() {
	local dir f
	dir=$("$SRC/tools/get-real-builds" 2>"$T/get-real-builds.err" | tail -n 1) && [ -d "$dir" ] ||
		skip "cannot fetch the real builds: $(tail -n 1 "$T/get-real-builds.err")"
	mkdir -p "$R$RB" || exit 99
	IN_ROOT_BIND="${IN_ROOT_BIND:+$IN_ROOT_BIND }$dir:$RB"
	REAL_BUILDS_DIR=$dir
	REAL_BUILD_FILES=()
	while IFS= read -r f; do
		case $f in
		*.ptx) REAL_BUILD_FILES+=("$RB/${f#"$dir"/}") ;;
		*) [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] &&
			REAL_BUILD_FILES+=("$RB/${f#"$dir"/}") ;;
		esac
	done < <(find "$dir/sid/root" "$dir/trixie/root" "$dir/bookworm/root" "$dir/pypi" \
		-type f ! -path '*/usr/share/doc/*' ! -name '*.whl' | LC_ALL=C sort)
	for f in libcublas.so.12.4.5.8 libcublasLt.so.12.4.5.8 libcufft.so.11.2.1.3 libnccl.so.2.22.3; do
		[ -f "$R/usr/lib/x86_64-linux-gnu/$f" ] || fail "the root has no /usr/lib/x86_64-linux-gnu/$f"
		REAL_BUILD_FILES+=("/usr/lib/x86_64-linux-gnu/$f")
	done
}

# need_cuobjdump: NVIDIA's cuobjdump 12.4 (find_cuobjdump), copied into the
# scratch folder: $CUOBJDUMP_IN as the root sees it. Skips without one.
need_cuobjdump() {
	local c
	c=$(find_cuobjdump)
	[ -n "$c" ] || skip "cuobjdump not found (set CUOBJDUMP, or run tools/get-cuobjdump build/tools/cuobjdump)"
	cp "$c" "$T/cuobjdump" || exit 99
	CUOBJDUMP_IN=$RT/cuobjdump
}

# check_table TABLE: cudatrace check --json in the root against a verdict
# table written by hand, one line per file and driver:
#   FILE DRIVER V35 V50 V61 V70 V80 V86 V90 V100 V120  # why
# FILE may be a wheel's member, WHEEL!MEMBER (check reads the wheel). DRIVER
# is - (no --driver), 470, 550 or 580; each V the verdict for sm_35,
# sm_50, sm_61, sm_70, sm_80, sm_86, sm_90, sm_100, sm_120 in that order,
# abbreviated: S sass, J ptx-jit, N no-image, T ptx-too-new, G
# no-gpu-support, D driver-too-old, - no-device-code. Text after # is the
# reasoning, for the reader. One check per driver over its files; every
# verdict that differs is a failure, named with the file, target and driver.
CHECK_TARGETS=(sm_35 sm_50 sm_61 sm_70 sm_80 sm_86 sm_90 sm_100 sm_120)
check_table() {
	local drv f d args
	for drv in - 470 550 580; do
		files=()
		while read -r f d _; do
			# A wheel's member (WHEEL!MEMBER): check reads the wheel.
			f=${f%%!*}
			[ "$d" = "$drv" ] && case " ${files[*]} " in *" $f "*) ;; *) files+=("$f") ;; esac
		done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' <<<"$1")
		[ ${#files[@]} -gt 0 ] || continue
		# The JSON (megabytes) stays in the scratch folder; the log gets the
		# command, its exit status and each verdict compared.
		args=(check --json --arch "$(IFS=,; echo "${CHECK_TARGETS[*]}")")
		[ "$drv" = - ] || args+=(--driver "$drv")
		echo "    \$ cudatrace ${args[*]} (${#files[@]} files)"
		inroot "$CT_IN" "${args[@]}" "${files[@]}" >"$T/check-$drv.json" 2>"$T/err"
		rc=$?
		echo "    (exit $rc)"
		[ "$rc" -le 1 ] || { sed 's/^/    /' "$T/err"; fail "check --driver $drv: exit $rc"; }
		json_kept+=("$T/check-$drv.json")
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' <<<"$1" | awk -v d="$drv" '$2 == d' |
			python3 -c '
import json, sys
abbrev = {"S": "sass", "J": "ptx-jit", "N": "no-image", "T": "ptx-too-new",
          "G": "no-gpu-support", "D": "driver-too-old", "-": "no-device-code"}
targets = sys.argv[2].split(",")
got = {f["path"]: {r["target"]: r["verdict"] for r in f.get("results") or []}
       for f in json.load(open(sys.argv[1]))["files"]}
bad = 0
for line in sys.stdin:
    w = line.split()
    path, drv, want = w[0], w[1], w[2:]
    if len(want) != len(targets):
        print("FAIL: table line for %s has %d verdicts, not %d" % (path, len(want), len(targets)))
        bad += 1
        continue
    name = path.rsplit("/", 1)[-1]
    for t, v in zip(targets, want):
        g = got.get(path, {}).get(t, "no-device-code" if path in got else "nothing")
        if g == abbrev[v]:
            continue
        print("FAIL: %s on %s, driver %s: check says %s, the table %s" % (name, t, drv, g, abbrev[v]))
        bad += 1
    if not any(g != abbrev[v] for t, v in zip(targets, want)
               for g in [got.get(path, {}).get(t, "no-device-code" if path in got else "nothing")]):
        print("ok: %s, driver %s: %s" % (name, drv, " ".join(want)))
sys.exit(1 if bad else 0)
' "$T/check-$drv.json" "$(IFS=,; echo "${CHECK_TARGETS[*]}")" >"$T/cmp-$drv"
		sed 's/^/    /' "$T/cmp-$drv"
		failures=$((failures + $(grep -c '^FAIL: ' "$T/cmp-$drv")))
	done
}

# need_glibc_2_36_host: this machine (not the root) as the Debian 12 machine
# of issue 32: cudatrace built here by tests/real/run ($HCT), judging with
# this machine's glibc and ld.so.cache. Skips unless its glibc is 2.36
# (bookworm's), older than the GLIBC_2.38 that trixie's builds need.
need_glibc_2_36_host() {
	local v
	HCT=${CUDATRACE_HOST_BUILD:-$SRC/build}/cudatrace
	[ -x "$HCT" ] || skip "cudatrace is not built on this machine ($HCT; tests/real/run builds it)"
	v=$(getconf GNU_LIBC_VERSION 2>/dev/null)
	[ "$v" = "glibc 2.36" ] ||
		skip "this machine's C library is '${v:-unknown}', not bookworm's glibc 2.36: the scenario needs a Debian 12 machine"
}

# hct NAME [VAR=VALUE...] -- SUBCOMMAND ARG...: as ctx, with $HCT on this
# machine instead of the root.
hct() {
	local name=$1 vars=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env "${vars[@]}" "$HCT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	{
		echo "== $name (on this machine, $(getconf GNU_LIBC_VERSION))"
		echo "\$ ${vars[*]:+${vars[*]} }cudatrace $*"
		cat "$T/out" "$T/err"
		echo "(exit $rc)"
		echo "=="
	} | sed 's/^/    /'
}
