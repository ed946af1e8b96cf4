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

# ct_exec NAME TRACE VAR=VALUE... -- ARG...: ct and ctx.
ct_exec() {
	local name=$1 trace=$2 vars=() shown
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	if [ "$trace" = yes ]; then
		inroot env "${vars[@]}" "$CT_IN" -o "$RT/$name" -- "$@" >"$T/out" 2>"$T/err"
	else
		inroot env "${vars[@]}" "$CT_IN" "$@" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	shown=$(for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./:=,+@%-]* | '') printf " '%s'" "${a//\'/\'\\\'\'}" ;;
		*) printf ' %s' "$a" ;;
		esac
	done)
	{
		echo "== $name"
		echo "\$ ${vars[*]:+${vars[*]} }cudatrace${shown}"
		cat "$T/out" "$T/err"
		echo "(exit $rc)"
		echo "=="
	} | sed 's/^/    /'
}

ct() {
	ct_exec "$1" yes "${@:2}"
}

ctx() {
	ct_exec "$1" no "${@:2}"
}

findings() {
	awk -v c="$1" '$0 ~ "^(error|warning|info) " c ":" { on = 1 }
		on { print } on && /^$/ { on = 0 }' "$T/err" >"$T/finding"
}

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

# need_real_builds: Debian's third-party CUDA builds (tools/get-real-builds,
# fetched once into /var/cache/cudatrace-tests/real-builds), bound read-only
# at $RB in the root; skips when they cannot be fetched. Sets
# REAL_BUILD_FILES: every ELF file of those packages and the bare PTX file of
# gpu-burn, then trixie's cuBLAS 12.4 and cuFFT 11.2, which the root has
# (python3-torch-cuda installs them), all as the root sees them.
RB=/opt/real-builds
need_real_builds() {
	local dir f
	dir=$("$SRC/tools/get-real-builds" 2>"$T/get-real-builds.err" | tail -n 1) && [ -d "$dir" ] ||
		skip "cannot fetch the real builds: $(tail -n 1 "$T/get-real-builds.err")"
	mkdir -p "$R$RB" || exit 99
	IN_ROOT_BIND="${IN_ROOT_BIND:+$IN_ROOT_BIND }$dir:$RB"
	REAL_BUILD_FILES=()
	while IFS= read -r f; do
		case $f in
		*.ptx) REAL_BUILD_FILES+=("$RB/${f#"$dir"/}") ;;
		*) [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] &&
			REAL_BUILD_FILES+=("$RB/${f#"$dir"/}") ;;
		esac
	done < <(find "$dir/sid/root" "$dir/trixie/root" -type f ! -path '*/usr/share/doc/*' | LC_ALL=C sort)
	for f in libcublas.so.12.4.5.8 libcublasLt.so.12.4.5.8 libcufft.so.11.2.1.3; do
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
