# SIGKILL of ra-import at measured points: the whole process group (early,
# mid-load, during the analyses, right before and during the commit), the
# parent alone, the child alone. A new database appears whole or not at all;
# an existing one passes PRAGMA integrity_check and holds exactly its earlier
# runs; the child never outlives the parent; a killed child is reported as
# killed, not as corrupt input; the temporary a kill leaves is removed by the
# next import into the same database.
# test: cpu=1 budget=47
. "$(dirname "$0")/lib.sh"
make_tmp
cd "$TMP" || fail "cd"
set -m	# each background job its own process group, as a shell user's command
F=$RA_FIXTURES
files=()
for _ in 1 2 3; do files+=("$F/par4thrash.dat" "$F/mmapread.dat" "$F/seq128.dat"); done
n=${#files[@]}
ra-import -q -o keep.db --label base "$F/nvme-readahead.blktrace.0" || fail "base import"
dump() { q "$1" "SELECT run_id, label, origin, complete FROM runs ORDER BY run_id" | sha256sum; }
before=$(dump keep.db)

# The calibration: stderr lines of a whole import, with the time each appeared.
stamp() { while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done; }
t0=$EPOCHREALTIME
ra-import -v -o cal.db "${files[@]}" 2> >(stamp > cal.log)
t_end=$EPOCHREALTIME
sleep 0.3
check_eq "$(q cal.db 'SELECT COUNT(*) FROM runs')" "$n" "calibration import"
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
# E: the "events from" line of each item, the end of its analyses; A: the last
# item's first analysis line
mapfile -t E < <(grep "events from" cal.log | cut -d' ' -f1)
A=$(awk -v prev="${E[n - 2]}" '$1 > prev && $2 != "ra-import:" { print $1; exit }' cal.log)
# shellcheck disable=SC2015 # fail when either is wrong
[ ${#E[@]} -eq "$n" ] && [ -n "$A" ] || fail "calibration: $(cat cal.log)"
e_last=$(ms "$t0" "${E[n - 1]}")
total=$(ms "$t0" "$t_end")
load=$(ms "${E[n - 2]}" "$A") commit=$(ms "${E[n - 1]}" "$t_end")
note "calibration: ${total} ms; the last item loads in ~${load} ms, analyses until ${e_last} ms, the commit takes ~${commit} ms"
# NAME:LINE:NTH:DELAY_MS: kill DELAY_MS after the NTH stderr line that matches
# LINE ("" and 0: after the start)
points=("early::0:20"
	"mid-load:events from:$((n / 2)):$((load / 2))"
	"last-load:events from:$((n - 1)):$((load / 2))"
	"analysis:^(readahead|block|model):$((4 * n - 3)):0"
	"before-commit:events from:$n:0"
	"commit:ratrace does not use:$n:$((commit / 2))")

# kill_group DB LINE NTH DELAY_MS: start an import into DB and SIGKILL its
# process group as the point says; sets done_items (items analysed by then).
# (Not in a subshell: job control, which gives the import its own group, is
# off there.)
kill_group() {
	local db=$1 re=$2 nth=$3 delay=$4 pid line seen=0
	rm -f fifo
	mkfifo fifo
	ra-import -v -o "$db" "${files[@]}" 2>fifo &
	pid=$!
	exec 3<fifo
	: > kill.err
	if [ "$nth" -gt 0 ]; then
		while IFS= read -r -u 3 line; do
			echo "$line" >> kill.err
			[[ $line =~ $re ]] && seen=$((seen + 1))
			[ "$seen" -ge "$nth" ] && break
		done
	fi
	sleep "$(awk -v d="$delay" 'BEGIN { print d / 1000 }')"
	kill -KILL -- -"$pid" 2>/dev/null || note "the import ended before the kill"
	cat <&3 >> kill.err
	exec 3<&-
	wait "$pid" 2>/dev/null
	done_items=$(grep -c "events from" kill.err)
}

for p in "${points[@]}"; do
	IFS=: read -r name re nth delay <<< "$p"
	# a new database: no file, or a whole one
	kill_group new.db "$re" "$nth" "$delay"
	if [ -e new.db ]; then
		check_eq "$(q new.db 'PRAGMA integrity_check')" ok "$name: new database whole"
		check_eq "$(q new.db 'SELECT COUNT(*) FROM runs WHERE complete = 1')" "$n" \
			"$name: new database has every run"
		rm -f new.db*
	else
		echo "ok: $name ($done_items of $n items analysed): no new database"
	fi
	find . -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | grep -v -E '^(keep\.db.*|cal\.db.*|cal\.log|kill\.err|fifo|\.new\.db\.ratrace-new-[0-9]+(-wal|-shm|-journal)?)$' &&
		fail "$name: files left beside the database"
	# an existing database: its earlier runs, nothing of the killed import.
	# An import faster than the calibration's may commit before the kill
	# lands (its status SIGKILL's or not): the point is tried again sooner
	# (half the delay, then none).
	for d in "$delay" $((delay / 2)) 0; do
		kill_group keep.db "$re" "$nth" "$d"
		check_eq "$(q keep.db 'PRAGMA integrity_check')" ok "$name: existing database intact"
		committed=0
		if [ "$(dump keep.db)" != "$before" ]; then
			# committed: then all of the import is there
			committed=1
			check_eq "$(q keep.db 'SELECT COUNT(*) FROM runs WHERE complete = 1')" $((n + 1)) \
				"$name: a committed import is whole"
			# shellcheck disable=SC2015 # fail when any step fails
			ra-import -q -o keep.db.new "$F/nvme-readahead.blktrace.0" && mv keep.db.new keep.db &&
				rm -f keep.db-wal keep.db-shm || fail "restore keep.db"
			before=$(dump keep.db)
		else
			echo "ok: $name ($done_items of $n items analysed): existing database as it was"
		fi
		[ "$committed" = 0 ] || [ "$name" = commit ] || [ "$name" = before-commit ] && break
		[ "$d" = 0 ] && fail "$name: the import committed before the kill, three times"
		note "$name: the import committed before the kill (${d} ms after its line); again sooner"
	done
done

# The next import into the database removes what the kills left.
ra-import -q -o new.db "$F/seq128.dat" || fail "import after the kills"
check_eq "$(find . -mindepth 1 -maxdepth 1 -name '.new.db.ratrace-new-*' | wc -l)" 0 "temporaries of killed imports removed"
rm -f new.db*

# import_child PID: the import child of PID once it has read the first file
# (its rchar), mid-import whatever the machine's load: sets child
first_bytes=$(stat -c %s "${files[0]}")
import_child() {
	local r
	for _ in $(seq 600); do
		child=$(pgrep -P "$1")
		r=$( [ -n "$child" ] && awk '$1 == "rchar:" { print $2 }' "/proc/$child/io" 2>/dev/null)
		[ -n "$r" ] && [ "$r" -ge "$first_bytes" ] && return 0
		sleep 0.05
	done
	fail "no import child under $1 reading past the first file"
}

# SIGKILL of the parent alone: the child dies with it and commits nothing.
for db in new.db keep.db; do
	ra-import -q -o "$db" "${files[@]}" 2>/dev/null &
	pid=$!
	import_child "$pid"
	kill -KILL "$pid" || fail "$db: the import ended before the parent was killed"
	wait "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$child" 2>/dev/null && { kill -KILL "$child"; fail "$db: the child outlived its parent"; }
	sleep 0.5
	if [ "$db" = new.db ]; then
		[ -e new.db ] && fail "the orphaned child made new.db"
	else
		check_eq "$(dump keep.db)" "$before" "the orphaned child left keep.db as it was"
	fi
	echo "ok: $db: the child died with its parent"
done

# SIGKILL of the child alone (as the OOM killer does): a kill, not corrupt input.
for db in new.db keep.db; do
	ra-import -q -o "$db" "${files[@]}" 2>err &
	pid=$!
	import_child "$pid"
	kill -KILL "$child"
	wait "$pid"
	rc=$?
	state="is as it was"
	[ "$db" = new.db ] && state=removed
	check_eq "$rc" 137 "$db: exit status of a killed import"
	check_eq "$(wc -l < err)" 1 "$db: one line"
	check_grep "^ra-import: the import was killed \(SIGKILL\) while reading '.*\.dat'; '$db' $state$" err \
		"$db: the kill is named"
	[ "$db" = new.db ] && [ -e new.db ] && fail "the killed import left new.db"
	[ "$db" = keep.db ] && check_eq "$(dump keep.db)" "$before" "keep.db as it was"
	check_eq "$(find . -mindepth 1 -maxdepth 1 -name '.new.db.ratrace-new-*' | wc -l)" 0 "$db: the parent removed the temporary"
done
