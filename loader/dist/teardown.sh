# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Takes down what xdp-steer set up at run time, for `make uninstall` and
# the Debian package's prerm and postrm, which share these functions:
# debian/rules copies everything above the "command line" mark below into
# the maintainer scripts (a postrm cannot read a file its package has
# just removed). POSIX sh, as dpkg runs maintainer scripts with /bin/sh.
#
#   sh loader/dist/teardown.sh stop LOADER TEXTFILEDIR
#   sh loader/dist/teardown.sh disable
#
# stop: every unit instance of xdp-steer stopped (when systemd runs), then
# every interface xdp-steer has pins for detached, in the initial network
# namespace and in every other namespace still alive (entered with
# nsenter, as pins and programs are per namespace), then the pins of
# interfaces and namespaces that are gone removed (`detach --stale`), and
# the textfile collector's files, which node_exporter would otherwise
# serve, stale, forever. A program is never left attached with its pins
# gone: what detach cannot take down keeps its pins, and is named.
# disable: the links `systemctl enable` made for the units' instances
# removed (the unit files they point to are gone, or about to be).

XS_PIN_ROOT=/sys/fs/bpf/xdp-steer
XS_RUN_DIR=/run/xdp-steer
XS_UNIT_GLOBS="xdp-steer@*.service xdp-steer-balance@*.service xdp-steer-textfile@*.timer xdp-steer-textfile@*.service xdp-steer-repair@*.service"

xs_say() {
	echo "xdp-steer: $*" >&2
}

xs_systemd_runs() {
	[ -d /run/systemd/system ]
}

# xs_stop_units INVOKE: stops every loaded instance (systemctl's patterns
# match those), timers first (so none starts the textfile service
# again), then the balancers and repairs, then the main units, whose
# ExecStop detaches. INVOKE is systemctl, or deb-systemd-invoke in
# maintainer scripts (it honours policy-rc.d).
xs_stop_units() {
	xs_systemd_runs || return 0
	for glob in 'xdp-steer-textfile@*.timer' 'xdp-steer-textfile@*.service' \
		    'xdp-steer-balance@*.service' 'xdp-steer-repair@*.service' \
		    'xdp-steer@*.service'; do
		"$1" stop "$glob" ||
			xs_say "could not stop every $glob ('systemctl status $glob' says why)"
	done
}

# xs_netns_path INODE: a path that enters the network namespace of that
# inode (a name of `ip netns`, or a process in it), or nothing.
xs_netns_path() {
	for f in /run/netns/* /proc/[0-9]*/ns/net; do
		[ "$(stat -L -c %i "$f" 2>/dev/null)" = "$1" ] || continue
		echo "$f"
		return 0
	done
	return 1
}

# xs_detach_dir LOADER DIR [NETNS-PATH]: detaches each interface with pins
# in DIR (bpffs names write an interface's '.' as ':'), inside the network
# namespace NETNS-PATH enters when given.
xs_detach_dir() {
	for pins in "$2"/*; do
		[ -d "$pins" ] || continue
		case ${pins##*/} in
		netns-*) continue ;;	# another namespace's directory
		esac
		ifname=$(echo "${pins##*/}" | tr : .)
		if [ -n "${3:-}" ]; then
			nsenter --net="$3" "$1" -q detach "$ifname"
		else
			"$1" -q detach "$ifname"
		fi || xs_say "could not detach $ifname${3:+ in the network namespace of $3}: its pins stay in $pins"
	done
}

# xs_detach_all LOADER: every interface with pins, in every namespace
# alive, then the pins and locks of those gone.
xs_detach_all() {
	[ -d "$XS_PIN_ROOT" ] || return 0
	if [ ! -x "$1" ]; then
		xs_say "$1 is missing: interfaces with pins in $XS_PIN_ROOT stay attached; 'ip link set dev IFACE xdp off' takes one off"
		return 0
	fi
	for dir in "$XS_PIN_ROOT"/netns-*; do
		[ -d "$dir" ] || continue
		# netns-<inode>-<cookie>, or an earlier layout's netns-<inode>:
		# the loader inside finds its own directory by its cookie.
		id=${dir##*/netns-}
		path=$(xs_netns_path "${id%%-*}") || continue
		xs_detach_dir "$1" "$dir" "$path"
	done
	xs_detach_dir "$1" "$XS_PIN_ROOT"
	"$1" -q detach --stale ||
		xs_say "'xdp-steer detach --stale' left pins in $XS_PIN_ROOT (it names them above)"
}

# xs_remove_textfiles DIR: the textfile collector's files.
xs_remove_textfiles() {
	rm -f "$1"/xdp-steer-*.prom "$1"/xdp-steer-*.prom.tmp
}

# xs_forget: xdp-steer's directories under /sys/fs/bpf and /run, once
# nothing is left in them.
xs_forget() {
	rmdir "$XS_PIN_ROOT" 2>/dev/null || true
	rmdir "$XS_RUN_DIR" 2>/dev/null || true
}

# xdp_steer_stop LOADER TEXTFILEDIR INVOKE: see "stop" at the top.
xdp_steer_stop() {
	xs_stop_units "$3"
	xs_detach_all "$1"
	xs_remove_textfiles "$2"
	xs_forget
}

# xdp_steer_disable: see "disable" at the top. Only links: a unit or
# drop-in the administrator wrote under /etc/systemd/system stays.
xdp_steer_disable() {
	for link in /etc/systemd/system/*.wants/* /etc/systemd/system/*.requires/*; do
		[ -L "$link" ] || continue
		for glob in $XS_UNIT_GLOBS; do
			case ${link##*/} in
			$glob) ;;
			*) continue ;;
			esac
			rm -f "$link"
			dir=${link%/*}
			# A directory only enabling made: an interface's device
			# wants, or a unit's of xdp-steer.
			case ${dir##*/} in
			sys-subsystem-net-devices-*.device.wants|xdp-steer*@*.wants)
				rmdir "$dir" 2>/dev/null || true ;;
			esac
		done
	done
	if xs_systemd_runs; then
		systemctl daemon-reload || true
	fi
}

# ---- command line (not copied into the maintainer scripts) ----
case ${1:-} in
stop)
	[ $# -eq 3 ] || { echo "usage: teardown.sh stop LOADER TEXTFILEDIR" >&2; exit 2; }
	xdp_steer_stop "$2" "$3" systemctl
	;;
disable)
	xdp_steer_disable
	;;
*)
	echo "usage: teardown.sh stop LOADER TEXTFILEDIR | disable" >&2
	exit 2
	;;
esac
