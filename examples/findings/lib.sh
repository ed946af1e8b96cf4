# Sourced by every examples/findings/*/run script: where things are, and
# a private work folder. Each run script builds its scenario, runs it under
# cudatrace and leaves the report on stdout; it exits 0 when it ran, 77
# when this machine lacks what the scenario needs (the reason on the last
# line).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=${CUDATRACE_BUILD:-$top/build}
CT=${CUDATRACE:-$B/cudatrace}
APP=$B/examples/gpuapp
FAKE=$B/fakecuda
CUDA_LIB64=${CUDA_LIB64:-/usr/local/cuda/lib64}
[ -x "$CT" ] && [ -x "$APP" ] && [ -f "$FAKE/libcuda.so.1" ] || {
	echo "skip: build first: make all programs"
	exit 77
}
W=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-example.XXXXXX")
trap 'rm -rf "$W"' EXIT
# No colour, no driver of the machine's that the example did not ask for.
export NO_COLOR=1
unset LD_LIBRARY_PATH LD_PRELOAD CUDA_VISIBLE_DEVICES

# show CMD...: print the command line (quoted, so it can be pasted), then
# run it with stderr on stdout.
show() {
	local q
	q=$(printf '%q ' "$@")
	echo "\$ ${q% }"
	"$@" 2>&1
	echo "(exit $?)"
}

# stub DIR SONAME [CC-ARGS...]: a stand-in library with that soname.
stub() {
	local dir=$1 name=$2
	shift 2
	mkdir -p "$dir"
	echo "int stub_$RANDOM(void) { return 0; }" >"$W/stub.c"
	cc -shared -fPIC -o "$dir/$name" "$W/stub.c" -Wl,-soname,"$name" "$@"
}
