#!/bin/bash
# trace-cmd extract of tracefs instances into OUT, in a private mount
# namespace where what the machine does meanwhile cannot break the file:
# - /proc/sys/kernel/ftrace_enabled is covered: trace-cmd writes it, and
#   some machines refuse that;
# - the saved command lines are held still: trace-cmd 3.1 reads
#   saved_cmdlines once for its size and again for its content, so that a
#   task the machine starts in between gives a file whose saved command
#   lines run past their section (ra-import refuses it, naming the offset).
#
#   bench/tc_extract.sh OUT INSTANCE...      (root)
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OUT INSTANCE..." >&2; exit 2; }
out=$1
shift
T=/sys/kernel/tracing
args=()
for i in "$@"; do args+=(-B "$i"); done
snap=$(mktemp "${TMPDIR:-/tmp}/ratrace-cmdlines.XXXXXX")
trap 'rm -f "$snap"' EXIT
cat "$T/saved_cmdlines" > "$snap"
# shellcheck disable=SC2016 # the inner shell expands its own arguments
unshare -m sh -c 'mount --bind /dev/null /proc/sys/kernel/ftrace_enabled &&
	mount --bind "$1" "$2/saved_cmdlines" && shift 2 && exec trace-cmd extract "$@"' \
	sh "$snap" "$T" "${args[@]}" -o "$out"
