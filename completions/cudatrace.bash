# bash completion for cudatrace                            -*- shell-script -*-
#
# Installed as $(PREFIX)/share/bash-completion/completions/cudatrace; it
# needs nothing of the bash-completion package. The commands and options
# here are the ones `cudatrace --help` and `cudatrace COMMAND --help` list
# (tests/e2e/completions checks that they agree).

_cudatrace_commands='run scan report check ldd why doctor ps diff'

# Options of each command; those that take a value are in *_args.
_cudatrace_opts_run='-o --output --json --arch --eager -q --quiet -v --verbose --color --help'
_cudatrace_args_run='-o --output --json --arch'
_cudatrace_opts_report='--json --markdown --arch --run --job --trust-owner -q --quiet -v --verbose --color --help'
_cudatrace_args_report='--arch --run --job'
_cudatrace_opts_scan='--json -q --quiet -v --verbose --verify --known-sections --color --help'
_cudatrace_args_scan=''
_cudatrace_opts_check='--arch --driver --json --format --require-sass --every-module -q --quiet -v --verbose --color --help'
_cudatrace_args_check='--arch --driver --format'
_cudatrace_opts_ldd='--json -q --quiet -v --verbose --library-path --preload --color --help'
_cudatrace_args_ldd='--library-path --preload'
_cudatrace_opts_why='--from --json -q --quiet -v --verbose --library-path --preload --color --help'
_cudatrace_args_why='--from --library-path --preload'
_cudatrace_opts_doctor='--json --markdown -q --quiet -v --verbose --arch --python --color --help'
_cudatrace_args_doctor='--arch --python'
_cudatrace_opts_ps='--json --markdown --arch -q --quiet -v --verbose --color --help'
_cudatrace_args_ps='--arch'
_cudatrace_opts_diff='--json --markdown -q --quiet -v --verbose --trust-owner --color --help'

# GPU archs --arch takes (any sm_XY[a|f] is accepted; these are the ones
# NVIDIA's toolkits build), and native: the GPUs the driver reports.
_cudatrace_archs='sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86
sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_101 sm_101a sm_103 sm_103a
sm_103f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f'

# _cudatrace_add WORD...: appends the words to COMPREPLY, one each.
_cudatrace_add()
{
	local w
	for w in "$@"; do
		COMPREPLY+=("$w")
	done
}

# --arch: the archs (compute_ names when the word starts so), after the
# comma-separated ones already given.
_cudatrace_arch()
{
	local cur=$1 head= last a
	case $cur in
	*,*)
		head=${cur%,*},
		last=${cur##*,}
		;;
	*) last=$cur ;;
	esac
	for a in native $_cudatrace_archs; do
		case $last in
		c*) [ "$a" = native ] && continue; a=compute_${a#sm_} ;;
		esac
		case $a in
		"$last"*) COMPREPLY+=("$head$a") ;;
		esac
	done
}

# Directories for report: those that hold a trace (*.jsonl or a run
# record) or other directories to go down into; any directory when none do.
_cudatrace_trace_dirs()
{
	local cur=$1 d all=() picked=()
	local IFS=$'\n'
	all=($(compgen -d -- "$cur"))
	for d in "${all[@]}"; do
		if compgen -G "$d/*.jsonl" >/dev/null || compgen -G "$d/*.run.json" >/dev/null ||
			compgen -G "$d/*/" >/dev/null; then
			picked+=("$d")
		fi
	done
	[ ${#picked[@]} -eq 0 ] && picked=("${all[@]}")
	COMPREPLY+=("${picked[@]}")
	compopt -o filenames 2>/dev/null
}

_cudatrace_files()
{
	local IFS=$'\n'
	COMPREPLY+=($(compgen -f -- "$1"))
	compopt -o filenames 2>/dev/null
}

_cudatrace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w opts args
	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# --color=WHEN: its values (bash splits at '=', COMP_WORDBREAKS).
	if [ "$prev" = --color ] && [ "$cur" = = ]; then
		_cudatrace_add auto always never
		return 0
	elif [ "$COMP_CWORD" -gt 1 ] && [ "$prev" = = ] && [ "${COMP_WORDS[COMP_CWORD - 2]}" = --color ]; then
		_cudatrace_add $(compgen -W 'auto always never' -- "$cur")
		return 0
	fi

	# --opt=value: bash splits at '=' (COMP_WORDBREAKS).
	if [ "$cur" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=
	elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 2 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# The command: the first word that is not an option (run when it is
	# none of ours: cudatrace python train.py); the run options before it.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		-o | --output | --json | --arch) ((i++)) ;;
		--color) [ "${COMP_WORDS[i + 1]}" = = ] && ((i += 2)) ;;
		--) cmd=run-program; break ;;
		-*) ;;
		*)
			case " $_cudatrace_commands " in
			*" $w "*) cmd=$w ;;
			*) cmd=run-program ;;
			esac
			break
			;;
		esac
	done

	if [ "$cmd" = run-program ]; then
		# The program's own arguments: files.
		_cudatrace_files "$cur"
		return 0
	fi
	opts=_cudatrace_opts_${cmd:-run}
	args=_cudatrace_args_${cmd:-run}

	case " ${!args} " in
	*" $prev "*)
		case $prev in
		--arch) _cudatrace_arch "$cur" ;;
		--format) _cudatrace_add $(compgen -W 'text json github' -- "$cur") ;;
		# check's --driver: native, or a Linux driver branch (any X.Y.Z is accepted).
		--driver) _cudatrace_add $(compgen -W 'native 535 550 560 570 575 580 590' -- "$cur") ;;
		-o | --output)
			local IFS=$'\n'
			COMPREPLY=($(compgen -d -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		--json | --from | --python) _cudatrace_files "$cur" ;;
		--library-path | --preload | --run | --job) ;;
		esac
		return 0
		;;
	esac

	case $cur in
	-*)
		if [ -z "$cmd" ]; then
			_cudatrace_add $(compgen -W "${!opts} -V --version" -- "$cur")
		else
			_cudatrace_add $(compgen -W "${!opts}" -- "$cur")
		fi
		return 0
		;;
	esac

	case $cmd in
	"")
		# cudatrace COMMAND, or a program to run under it (once a
		# letter of its name is typed: not every command on PATH).
		_cudatrace_add $(compgen -W "$_cudatrace_commands" -- "$cur")
		[ -z "$cur" ] && return 0
		local IFS=$'\n'
		COMPREPLY+=($(compgen -c -- "$cur" | grep -v '^cudatrace$' | sort -u))
		;;
	run)
		local IFS=$'\n'
		COMPREPLY+=($(compgen -c -- "$cur" | sort -u))
		;;
	report) _cudatrace_trace_dirs "$cur" ;;
	scan | check | ldd) _cudatrace_files "$cur" ;;
	why) ;; # a library name: nothing to offer
	doctor) ;;
	diff) # trace folders, or report/doctor --json files
		_cudatrace_trace_dirs "$cur"
		_cudatrace_add $(compgen -f -X '!*.json' -- "$cur") ;;
	ps) # the process ids of the user's processes
		_cudatrace_add $(compgen -W "$(command ps -o pid= -u "$(id -u)" 2>/dev/null)" -- "$cur") ;;
	esac
	return 0
}

complete -F _cudatrace cudatrace
