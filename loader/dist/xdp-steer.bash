# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bash completion for xdp-steer: commands, each command's options,
# interface names (from /sys/class/net) where an IFACE goes, policy files
# (*.yaml, *.yml, and directories to reach them) for --policy (and for
# the policy argument of the old spelling of check and apply), the values
# of --mode. Installed as
# share/bash-completion/completions/xdp-steer; needs nothing from the
# bash-completion package, which only loads it.
#
# The commands and options below are checked against `xdp-steer help`
# and each `xdp-steer COMMAND --help` by tests/unit/test_install.sh.

_xdp_steer_commands="check attach apply repair detach status stats which balance pin-dir help"
_xdp_steer_global_opts="-v --verbose -q --quiet -h --help -V --version"

# _xdp_steer_opts COMMAND: the options COMMAND takes.
_xdp_steer_opts() {
	case $1 in
	check)		echo "--policy --cpus --nodes --nic-node" ;;
	attach)		echo "--policy --mode --rx-slots" ;;
	apply)		echo "--policy --dry-run --json" ;;
	detach)		echo "--stale --unless-restarting" ;;
	status)		echo "--json --top --all" ;;
	stats)		echo "--interval --count --totals --json --prometheus --top --all" ;;
	which)		echo "--json" ;;
	balance)	echo "--once --dry-run --json" ;;
	pin-dir)	echo "--create" ;;
	help)		echo "--help"; return ;;
	esac
	echo "--help --verbose --quiet"
}

# _xdp_steer_takes_arg COMMAND OPTION: true when OPTION consumes the next
# word. A letter means one thing in every command that takes it.
_xdp_steer_takes_arg() {
	case $1:$2 in
	*:--policy|*:--mode|*:--interval|*:--count|*:--cpus|*:--top|attach:--rx-slots|detach:--unless-restarting) return 0 ;;
	check:-p|attach:-p|apply:-p|attach:-m|stats:-i|stats:-c) return 0 ;;
	esac
	return 1
}

_xdp_steer_ifaces() {
	local d
	for d in /sys/class/net/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

# Policy files and directories under the word being completed.
_xdp_steer_policies() {
	local cur=$1
	# Filenames: quote and append "/" as bash does for paths. Outside a
	# completion (in the tests) compopt refuses, harmlessly.
	compopt -o filenames 2>/dev/null
	compgen -d -- "$cur"
	# Two patterns, not one: @(yaml|yml) would need extglob.
	compgen -f -X '!*.yaml' -- "$cur"
	compgen -f -X '!*.yml' -- "$cur"
}

_xdp_steer() {
	local cur prev cmd i word npos=0 opt_arg=0
	local -a words=("${COMP_WORDS[@]}")
	local cword=$COMP_CWORD

	cur=${words[cword]}
	prev=
	[ "$cword" -gt 0 ] && prev=${words[cword - 1]}
	# COMP_WORDBREAKS splits --policy=FILE into "--policy" "=" "FILE".
	if [ "$cur" = "=" ]; then
		cur=
	elif [ "$prev" = "=" ] && [ "$cword" -gt 1 ]; then
		prev=${words[cword - 2]}
	fi

	# The command: the first word after the global options.
	cmd=
	for ((i = 1; i < cword; i++)); do
		word=${words[i]}
		case $word in
		-*) ;;
		*) cmd=$word; break ;;
		esac
	done

	if [ -z "$cmd" ]; then
		case $cur in
		-*) mapfile -t COMPREPLY < <(compgen -W "$_xdp_steer_global_opts" -- "$cur") ;;
		*) mapfile -t COMPREPLY < <(compgen -W "$_xdp_steer_commands" -- "$cur") ;;
		esac
		return 0
	fi

	# The value of an option.
	if _xdp_steer_takes_arg "$cmd" "$prev"; then
		case $prev in
		--policy|-p)
			mapfile -t COMPREPLY < <(_xdp_steer_policies "$cur") ;;
		--mode|-m)
			mapfile -t COMPREPLY < <(compgen -W "native skb" -- "$cur") ;;
		*)
			COMPREPLY=() ;;
		esac
		return 0
	fi

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_xdp_steer_opts "$cmd")" -- "$cur")
		return 0
	fi

	# Which positional argument is this? Count those before it, skipping
	# options and the words they take ("--policy" "=" "FILE" included).
	for ((i = i + 1; i < cword; i++)); do
		word=${words[i]}
		if [ "$opt_arg" -gt 0 ]; then
			opt_arg=$((opt_arg - 1))
			[ "$word" = "=" ] && opt_arg=1
			continue
		fi
		case $word in
		-*) _xdp_steer_takes_arg "$cmd" "$word" && opt_arg=1 ;;
		*) npos=$((npos + 1)) ;;
		esac
	done

	case $cmd:$npos in
	check:0|apply:1)
		mapfile -t COMPREPLY < <(_xdp_steer_policies "$cur") ;;
	attach:0|apply:0|repair:0|detach:0|status:0|stats:0|which:0|balance:0|pin-dir:0)
		mapfile -t COMPREPLY < <(compgen -W "$(_xdp_steer_ifaces)" -- "$cur") ;;
	help:0)
		mapfile -t COMPREPLY < <(compgen -W "$_xdp_steer_commands" -- "$cur") ;;
	which:1)
		mapfile -t COMPREPLY < <(compgen -W "tcp udp udplite sctp icmp icmpv6" -- "$cur") ;;
	*)
		COMPREPLY=() ;;
	esac
	return 0
}

complete -F _xdp_steer xdp-steer
