# Sourced by the packaging tests (tests/pkg/*, make check-pkg): the e2e
# helpers, and an overlay of the clean Debian root of tools/make-pkg-root to
# install a package into. The root itself is never changed.
#
# A test re-runs itself in a private mount namespace (unshare --mount), so
# that the overlay vanishes with it; in_root runs a command chrooted into the
# overlay (tools/in-root: a clean environment, and nothing of this machine
# but /dev, /proc and /sys: the checkout and the build tree are out of reach).

if [ -z "${CT_PKG_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (chroot, mounts)"; exit 77; }
	command -v unshare >/dev/null 2>&1 || { echo "skip: unshare not found (util-linux)"; exit 77; }
	exec unshare --mount --propagation private -- env CT_PKG_NS=1 "$0" "$@"
fi

. "$(dirname "$0")/../e2e/lib.sh"

: "${CT_PKG_ROOT:?harness: CT_PKG_ROOT (the root of tools/make-pkg-root) is not set}"
[ -f "$CT_PKG_ROOT/.cudatrace-pkg-root" ] || { echo "harness: $CT_PKG_ROOT is not a root of tools/make-pkg-root"; exit 99; }

# The overlay: $R is the root as the test sees and changes it.
R=$T/merged
mkdir -p "$T/upper" "$T/work" "$R" || exit 99
mount -t overlay overlay -o "lowerdir=$CT_PKG_ROOT,upperdir=$T/upper,workdir=$T/work" "$R" ||
	{ echo "harness: cannot mount an overlay of $CT_PKG_ROOT"; exit 99; }
trap 'umount -l "$R" 2>/dev/null; rm -rf --one-file-system "$T"' EXIT

# in_root CMD...: runs CMD in the overlay, as run does (stdout in $T/out,
# stderr in $T/err, status in $rc).
in_root() {
	run "$SRC/tools/in-root" "$R" "$@"
}

# show: the last command's output, for the log.
show() {
	sed 's/^/  | /' "$T/out" "$T/err"
}
