#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): the shared headers of include/xdp_steer/, one per
# concern. Each compiles alone, included twice (its guard), under gcc
# -Wall -Wextra -Werror and under clang -target bpf, so a file that needs
# one concern can include its header and nothing else; xdp_steer.h, the
# umbrella, includes every one; each opens with the line that says its job;
# no comment sits inside a macro's continuation lines. The headers of bpf/
# (the datapath's: the parser's parts, the hash, the map definitions)
# compile alone under clang -target bpf and open with their job too, but
# drain.h, which reads the program's maps and is included after them. A
# copy of a header stripped of its includes is refused, so the check can
# fail.
set -u
SUITE=headers
. "$(dirname "$0")/../e2e/lib.sh"
ROOT=$E2E_ROOT
INC=$ROOT/include
CC=${CC:-gcc}
CLANG=${CLANG:-clang}
ARCH_INCLUDE=/usr/include/$($CC -dumpmachine 2>/dev/null)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# alone COMPILER INCDIR HEADER [BPFDIR]: HEADER (relative to INCDIR, or to
# BPFDIR, searched after INCDIR) compiles as the only thing in a file,
# included twice.
alone() {
	printf '#include "%s"\n#include "%s"\n' "$3" "$3" >"$T/alone.c"
	case $1 in
	gcc)	$CC -Wall -Wextra -Werror -I"$2" -c "$T/alone.c" -o "$T/alone.o" ;;
	bpf)	$CLANG -target bpf -O2 -Wall -Wextra -Werror -mcpu=v3 -I"$2" \
			${4:+-I"$4"} -I"$ARCH_INCLUDE" -c "$T/alone.c" \
			-o "$T/alone.o" ;;
	esac
}
refused() { ! alone "$@"; }

# opens_with_job HEADER [DIR]: its comment's first line is "HEADER - ...",
# HEADER relative to DIR (include/ unless given).
opens_with_job() {
	local dir=${2:-$INC}

	sed -n 3p "$dir/$1" | grep -q "^ \* ${1//./\\.} - ." ||
		{ echo "line 3 of $1: $(sed -n 3p "$dir/$1")"; return 1; }
}

# umbrella_has HEADER: xdp_steer.h includes it.
umbrella_has() {
	grep -q "^#include \"$1\"" "$INC/xdp_steer.h" ||
		{ echo "no #include \"$1\" in include/xdp_steer.h"; return 1; }
}

# no_comment_in_continuations FILE: no line that continues a macro holds
# a comment, nor a comment's line (a comment spanning continuations).
no_comment_in_continuations() {
	awk -v f="$1" '
		{
			in_macro = cont && (/\/\*/ || /\*\// || /^[ \t]*\*/)
			if (in_macro || (/\\$/ && /\/\*/)) {
				print f ":" NR ": " $0
				bad = 1
			}
			cont = /\\$/
		}
		END { exit bad }' "$INC/$1"
}

headers=()
for h in "$INC"/xdp_steer/*.h; do
	headers+=("xdp_steer/$(basename "$h")")
done
check "include/xdp_steer/ holds the shared headers (${#headers[@]})" \
	test ${#headers[@]} -gt 1

for h in "${headers[@]}"; do
	check "$h compiles alone under gcc -Wall -Wextra -Werror" alone gcc "$INC" "$h"
	check "$h compiles alone under clang -target bpf" alone bpf "$INC" "$h"
	check "$h opens with the line that says its job" opens_with_job "$h"
	check "xdp_steer.h includes $h" umbrella_has "$h"
	check "$h has no comment inside a macro's continuation lines" \
		no_comment_in_continuations "$h"
done
check "xdp_steer.h compiles alone under gcc -Wall -Wextra -Werror" \
	alone gcc "$INC" xdp_steer.h
check "xdp_steer.h compiles alone under clang -target bpf" \
	alone bpf "$INC" xdp_steer.h

# The datapath's headers (bpf/), with the include path the BPF build uses.
BPF=$ROOT/bpf
bpf_headers=()
for h in "$BPF"/*.h; do
	case $(basename "$h") in
	*.skel.h|drain.h)	;;
	*)			bpf_headers+=("$(basename "$h")") ;;
	esac
done
check "bpf/ holds the parser's headers" test -f "$BPF/parse_fast.h"
for h in "${bpf_headers[@]}"; do
	check "bpf/$h compiles alone under clang -target bpf" \
		alone bpf "$INC" "$h" "$BPF"
	check "bpf/$h opens with the line that says its job" \
		opens_with_job "$h" "$BPF"
done

# The check itself: the filter's header without its includes (it needs the
# slot's and the keys' types) is refused by both compilers.
mkdir -p "$T/include/xdp_steer"
cp "$INC"/xdp_steer/*.h "$T/include/xdp_steer/"
sed -i '/^#include /d' "$T/include/xdp_steer/filter.h"
check "a header stripped of its includes is refused by gcc" \
	refused gcc "$T/include" xdp_steer/filter.h
check "a header stripped of its includes is refused by clang -target bpf" \
	refused bpf "$T/include" xdp_steer/filter.h
# And the fast path's parser without its includes (it needs the cursor).
mkdir -p "$T/bpf"
cp "$BPF"/*.h "$T/bpf/"
check "the copy of bpf/ compiles before its includes are stripped" \
	alone bpf "$INC" parse_fast.h "$T/bpf"
sed -i '/^#include /d' "$T/bpf/parse_fast.h"
check "a bpf/ header stripped of its includes is refused by clang -target bpf" \
	refused bpf "$INC" parse_fast.h "$T/bpf"

e2e_done
