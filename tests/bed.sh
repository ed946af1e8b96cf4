# Sourced by the beds that run cudatrace on real software, after
# tests/e2e/lib.sh (tests/real/lib.sh: in Debian's PyTorch root;
# tests/pip/lib.sh: in pip's venvs): ct, ctx and findings, the same in
# both. The bed defines where and with what they run:
#   bed_run CMD...   runs CMD where the bed's programs are
#   BED_CT           cudatrace's path there
#   BED_TRACES       the folder (as seen there) that ct's traces go in
# and may define bed_label (said after the scenario's name in the log) and
# bed_after_untraced ARG... (called after ctx, with its arguments).
#
#   ct NAME [VAR=VALUE...] -- COMMAND...   cudatrace -o BED_TRACES/NAME COMMAND
#   ctx NAME [VAR=VALUE...] -- SUBCOMMAND ARG...   cudatrace SUBCOMMAND ARG...
# Both leave stdout in $T/out, stderr in $T/err, the exit in $rc, and put
# the command and its whole output in the log, indented.
#   findings CODE   the findings of CODE in $T/err, into $T/finding

# ct_exec NAME TRACE VAR=VALUE... -- ARG...: ct and ctx.
ct_exec() {
	local name=$1 trace=$2 vars=() shown label=
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	if [ "$trace" = yes ]; then
		bed_run env "${vars[@]}" "$BED_CT" -o "$BED_TRACES/$name" -- "$@" >"$T/out" 2>"$T/err"
	else
		bed_run env "${vars[@]}" "$BED_CT" "$@" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	if [ "$trace" != yes ] && declare -F bed_after_untraced >/dev/null; then
		bed_after_untraced "$@"
	fi
	declare -F bed_label >/dev/null && label=" ($(bed_label))"
	shown=$(for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./:=,+@%-]* | '') printf " '%s'" "${a//\'/\'\\\'\'}" ;;
		*) printf ' %s' "$a" ;;
		esac
	done)
	{
		echo "== $name$label"
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
