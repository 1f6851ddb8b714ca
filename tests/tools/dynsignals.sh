# Inside a guest: inner recorders that SIGINT, SIGTERM and SIGKILL end while
# their workload runs, and the dynamic events and instances each leaves (the
# outer recorder, this script's parent, has its instance and no dynamic events).
# Last, ALL: the recorder and the process that cleans up after it both
# SIGKILLed; what they left, and what is left after the next recorder ran.
T=/sys/kernel/tracing
d=${0%/*}
outer=$PPID
count() {
	local n=0 i=0 line x
	while read -r line; do
		case $line in *ratrace_*) n=$((n + 1)) ;; esac
	done < $T/dynamic_events
	for x in "$T"/instances/ra-record.*; do
		[ -e "$x" ] && [ "$x" != "$T/instances/ra-record.$outer" ] && i=$((i + 1))
	done
	echo "$1 events=$n instances=$i"
}
if [ "${1:-}" = inner ]; then	# the inner recorder's workload
	outer=$3
	"$d/rawl" seq "$d/f" > /dev/null
	# into a file: what the workload prints reaches the outer output through
	# the inner recorder, which the kill may end before it passed the line on
	count "during $2" > "/tmp/during.$2"
	if [ "$2" = ALL ]; then
		for p in /proc/[0-9]*; do
			read -r c < "$p/comm" 2> /dev/null || continue
			[ "$c" = ra-record ] && [ "${p#/proc/}" != "$outer" ] && kill -KILL "${p#/proc/}"
		done
	else
		kill -"$2" $PPID
	fi
	sleep 2
	exit 0
fi
for sig in INT TERM KILL ALL; do
	ra-record -q -o /tmp/inner.db --no-analyze -- bash "$0" inner $sig $outer 2>&1
	echo "status $sig $?"
	cat "/tmp/during.$sig"
	sleep 3
	count "after $sig"
done
ra-record -q -o /tmp/next.db --no-analyze --event-source tracepoint -- sh -c :
count "after the next recorder"
