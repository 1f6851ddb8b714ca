#!/bin/bash
# The test runner: the unit test binaries and the end-to-end scripts, in
# parallel where they do not disturb each other, each under a time limit.
#
#   tests/run.sh [-j N] [--tier quick|all] [--list] [--dir DIR] [--artifacts DIR] [PATTERN...]
#
#   -j N            at most N tests at once (default twice the CPUs: most
#                   tests wait on a throttled device, a guest or a sleep)
#   --tier quick    only the tests that need nothing but the build (make test)
#   --list          print the tests with what they declare, run none
#   --dir DIR       the end-to-end scripts of DIR (t_*.sh) instead, no unit tests
#   --artifacts DIR the logs and timings there (default tests/artifacts)
#
# A test exits 0 (pass), 77 (skip, with the reason on its last line) or
# anything else (fail). With CI=true a skip counts as a failure: CI runs as
# root with tracefs, so nothing there may be skipped.
#
# An end-to-end test declares what it needs and what it does to others in one
# comment line of its own (all keys optional):
#
#   # test: needs=root,tracefs,qemu cpu=1 alone budget=20 timeout=120
#
# A unit test (tests/unit/test_*.c) may declare its budget and timeout the
# same way, in a line "// test: budget=12" of its source.
#
#   needs=    root, tracefs, qemu, chromium, clang, fio: what it cannot run
#             without; a test with no needs is in the quick tier (make test)
#   cpu=N     CPUs it keeps busy the whole time (an emulated guest, a
#             compiler), or needs free for itself (a measurement whose reader
#             must keep a throttled device busy): the tests running at once
#             ask for at most as many CPUs as the machine has
#   alone     it runs with no other test beside it: it changes what every
#             other test sees (unmounts tracefs, drops the whole page cache)
#   excl=L,.. tests that name one L never run at the same time: they leave or
#             look at state that all recorders share (excl=instances: the
#             tracefs instances a killed recorder leaves to the next one)
#   budget=S  seconds it takes on this kind of machine (2 CPUs); the runner
#             starts the longest first, and says so when a test took much
#             longer than its budget
#   timeout=S seconds after which it is stopped (SIGTERM to its process group,
#             SIGKILL 60 s later) and fails; default 4 x budget, at least 60;
#             times RA_TIMEOUT_SCALE (make: 3 in the sanitizers' build)
#
# Unit tests need nothing and take seconds. Every run writes each test's log
# to tests/artifacts/NAME.log and the times to tests/artifacts/timings.tsv.

set -u
cd "$(dirname "$0")/.." || exit 2
export RA_TOP=$PWD
export RA_BIN=$PWD/${RA_BUILD:-build}
export RA_FIXTURES=$PWD/tests/fixtures
export RA_SHARED_FIXTURES=${RA_SHARED_FIXTURES:-$PWD/../shared/fixtures}
export PATH=$RA_BIN:$PATH
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
artifacts=$PWD/tests/artifacts
e2e_dir=tests/e2e
unit=true

ncpu=$(nproc 2>/dev/null || echo 1)
# RA_TIMEOUT_SCALE=N: every time limit N times as long (make sets 3 for the
# sanitizers' build, which runs two to four times slower: a limit is there to
# stop a test that hangs). Not passed on to the tests.
timeout_scale=${RA_TIMEOUT_SCALE:-1}
unset RA_TIMEOUT_SCALE
case $timeout_scale in '' | *[!0-9]* | 0)
	echo "tests/run.sh: RA_TIMEOUT_SCALE takes a positive number" >&2; exit 2 ;;
esac
jobs=$((ncpu * 2))		# most tests wait on a throttled device, a guest or a sleep
tier=all
list=false
patterns=()
usage() {
	echo "usage: tests/run.sh [-j N] [--tier quick|all] [--list] [--dir DIR] [--artifacts DIR]" \
		"[PATTERN...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--tier) [ $# -ge 2 ] || usage; tier=$2; shift 2 ;;
	--tier=*) tier=${1#--tier=}; shift ;;
	--list) list=true; shift ;;
	--dir) [ $# -ge 2 ] || usage; e2e_dir=$2; unit=false; shift 2 ;;
	--artifacts) [ $# -ge 2 ] || usage; artifacts=$2; shift 2 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) patterns+=("$1"); shift ;;
	esac
done
case $jobs in '' | *[!0-9]* | 0) echo "tests/run.sh: -j takes a positive number" >&2; exit 2 ;; esac
case $tier in quick | all) ;; *) echo "tests/run.sh: no tier '$tier' (quick, all)" >&2; exit 2 ;; esac

# ---- the tests and what they declare ----

names=() cmds=() needs=() cpus=() alone=() excls=() budgets=() timeouts=()

# add NAME BUDGET DECLARATION PATH
add() {
	local name=$1 budget=$2 decl=$3 path=$4 w need="" cpu=0 solo=0 excl="" timeout=""
	for w in $decl; do
		case $w in
		needs=*) need=${w#needs=} ;;
		cpu=*) cpu=${w#cpu=} ;;
		alone) solo=1 ;;
		excl=*) excl=,${w#excl=}, ;;
		budget=*) budget=${w#budget=} ;;
		timeout=*) timeout=${w#timeout=} ;;
		*) echo "tests/run.sh: $name: unknown declaration '$w'" >&2; exit 2 ;;
		esac
	done
	[ "$cpu" -le "$ncpu" ] || cpu=$ncpu
	[ -n "$timeout" ] || timeout=$((budget * 4 < 60 ? 60 : budget * 4))
	timeout=$((timeout * timeout_scale))
	if [ "$tier" = quick ] && [ -n "$need" ]; then
		return
	fi
	if [ ${#patterns[@]} -gt 0 ]; then
		local p hit=false
		for p in "${patterns[@]}"; do
			case $name in *"$p"*) hit=true ;; esac
		done
		$hit || return
	fi
	names+=("$name") needs+=("$need") cpus+=("$cpu") alone+=("$solo") excls+=("$excl")
	budgets+=("$budget") timeouts+=("$timeout") cmds+=("$path")
}

$unit && for t in "$RA_BIN"/tests/test_*; do
	[ -x "$t" ] || continue
	decl=$(sed -n 's|^// test: ||p' "tests/unit/$(basename "$t").c" 2>/dev/null | head -n 1)
	add "unit/$(basename "$t")" 1 "$decl" "$t"
done
for t in "$e2e_dir"/t_*.sh; do
	[ -f "$t" ] || continue
	decl=$(sed -n 's/^# test: //p' "$t" | head -n 1)
	add "e2e/$(basename "$t" .sh)" 10 "$decl" "$t"
done
if [ ${#names[@]} -eq 0 ]; then
	echo "tests/run.sh: no test matches" >&2
	exit 2
fi

if $list; then
	for i in "${!names[@]}"; do
		printf '%-36s budget %4ss timeout %4ss cpu %s%s%s%s\n' "${names[$i]}" "${budgets[$i]}" \
			"${timeouts[$i]}" "${cpus[$i]}" "$([ "${alone[$i]}" = 1 ] && echo ' alone')" \
			"${excls[$i]:+ excl ${excls[$i]}}" "${needs[$i]:+ needs ${needs[$i]}}"
	done
	exit 0
fi

# The order of starting: the tests that run alone first (nothing runs yet),
# then the longest budget first, so that the short ones fill in at the end.
order=$(for i in "${!names[@]}"; do
	printf '%s %06d %s\n' "$((1 - alone[i]))" "${budgets[$i]}" "$i"
done | sort -k1,1n -k2,2nr | awk '{ print $3 }')
mapfile -t order <<<"$order"

# ---- what every test shares ----

mkdir -p "$artifacts/unit" "$artifacts/e2e" || exit 2
rm -rf "$artifacts"/e2e/*.dbs
export RA_ARTIFACTS=$artifacts/e2e	# where a failing test keeps its databases
work=$(mktemp -d /tmp/ratrace-run.XXXXXX) || exit 2
mounted_tracefs=false
running=()		# indices of the tests running now
declare -A pid_of=() start_of=()

# stop_all: every test launched is stopped, one whose launch the signal
# interrupted too (its pid not noted yet: the job table has it; before its
# setsid, it is no group of its own yet), and waited for
stop_all() {
	local p
	for p in $(jobs -p); do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
	wait
	$mounted_tracefs && umount /sys/kernel/tracing 2>/dev/null
	rm -rf "$work"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'rm -rf "$work"' EXIT

# tracefs, mounted once for every test (a test that mounted it itself would
# take it away from the others when it ends)
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] && ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing && mounted_tracefs=true
fi

# ---- running ----

# launch I: the test in a session of its own (its process group is what a
# time-out stops), its log and its exit status in files
launch() {
	local i=$1 log=$artifacts/${names[$1]}.log
	: >"$log"
	if [ "${names[$i]#unit/}" != "${names[$i]}" ]; then
		setsid timeout -k 60 "${timeouts[$i]}" "${cmds[$i]}" >"$log" 2>&1 </dev/null &
	else
		setsid timeout -k 60 "${timeouts[$i]}" bash "${cmds[$i]}" >"$log" 2>&1 </dev/null &
	fi
	pid_of[$i]=$!
	start_of[$i]=$(date +%s%N)
	running+=("$i")
}

pass=0 fail=0 skip=0
failed_names=()
failed_why=()		# each failed test's reason: its first "FAIL:" line, else its last line
results=()		# "name<TAB>status<TAB>seconds<TAB>budget<TAB>started at (s)"

# why_failed LOG: the line that says why a test failed, cut to 300 characters
why_failed() {
	local line
	line=$(grep -m 1 '^FAIL: ' "$1" 2>/dev/null) || line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
	printf '%s' "${line:0:300}"
}

# finish I RC: the verdict of test I, printed as it comes
finish() {
	local i=$1 rc=$2 name=${names[$1]} log=$artifacts/${names[$1]}.log secs ms status
	ms=$((($(date +%s%N) - start_of[$i]) / 1000000))
	secs=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))
	if [ "$rc" -eq 0 ]; then
		status=pass
		pass=$((pass + 1))
		printf 'PASS  %-36s %6ss\n' "$name" "$secs"
	elif [ "$rc" -eq 77 ] && [ "${CI:-}" != "true" ]; then
		status=skip
		skip=$((skip + 1))
		printf 'SKIP  %-36s %s\n' "$name" "$(tail -n 1 "$log")"
	else
		status=fail
		fail=$((fail + 1))
		failed_names+=("$name")
		failed_why+=("$(why_failed "$log")")
		if [ "$rc" -eq 77 ]; then
			printf 'FAIL  %-36s skipped in CI: %s\n' "$name" "$(tail -n 1 "$log")"
		elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			printf 'FAIL  %-36s timed out after %ss; it was at: %s\n' "$name" "${timeouts[$i]}" \
				"$(grep -v '^$' "$log" | tail -n 1)"
			sed 's/^/      | /' "$log" | tail -n 15
		else
			printf 'FAIL  %-36s (exit %d, %ss): %s\n' "$name" "$rc" "$secs" \
				"${failed_why[${#failed_why[@]} - 1]}"
			sed 's/^/      | /' "$log" | tail -n 30
		fi
	fi
	results+=("$(printf '%s\t%s\t%s\t%s\t%s' "$name" "$status" "$secs" "${budgets[$i]}" \
		$(((start_of[$i] - wall_start_ns) / 1000000000)))")
}

# shares ,A,B, ,C,A,: whether two lists of names have one in common
shares() {
	local x
	for x in ${1//,/ }; do
		case $2 in *",$x,"*) return 0 ;; esac
	done
	return 1
}

# fits I: whether test I can start beside those running
fits() {
	local i=$1 j cpu=0
	[ ${#running[@]} -eq 0 ] && return 0
	[ "${alone[$i]}" = 1 ] && return 1
	[ ${#running[@]} -ge "$jobs" ] && return 1
	for j in "${running[@]}"; do
		[ "${alone[$j]}" = 1 ] && return 1
		cpu=$((cpu + cpus[j]))
		[ -n "${excls[$i]}" ] && [ -n "${excls[$j]}" ] && shares "${excls[$i]}" "${excls[$j]}" && return 1
	done
	[ $((cpu + cpus[i])) -le "$ncpu" ]
}

wall_start=$(date +%s)
wall_start_ns=$(date +%s%N)
pending=("${order[@]}")
while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	# start what fits, in order; a test that runs alone waits for the others
	left=()
	blocked=false
	for i in "${pending[@]}"; do
		if ! $blocked && fits "$i"; then
			launch "$i"
		else
			left+=("$i")
			[ "${alone[$i]}" = 1 ] && blocked=true
		fi
	done
	pending=("${left[@]}")
	[ ${#running[@]} -gt 0 ] || continue
	done_pid=""
	pids=()
	for i in "${running[@]}"; do pids+=("${pid_of[$i]}"); done
	wait -n -p done_pid "${pids[@]}"
	rc=$?
	for k in "${!running[@]}"; do
		i=${running[$k]}
		if [ "${pid_of[$i]}" = "$done_pid" ]; then
			unset "running[$k]"
			running=("${running[@]}")
			finish "$i" "$rc"
			break
		fi
	done
done
wall=$(($(date +%s) - wall_start))
$mounted_tracefs && umount /sys/kernel/tracing 2>/dev/null
mounted_tracefs=false

# ---- timings ----

{
	printf 'test\tstatus\tseconds\tbudget\tstart\n'
	printf '%s\n' "${results[@]}"
} >"$artifacts/timings.tsv"
echo
echo "slowest (of $wall s wall; all times in $artifacts/timings.tsv):"
printf '%s\n' "${results[@]}" | sort -t "$(printf '\t')" -k3,3nr | head -n 10 |
	awk -F '\t' '{ printf "  %-36s %7ss  budget %ss\n", $1, $3, $4 }'
printf '%s\n' "${results[@]}" | awk -F '\t' '$2 == "pass" && $3 > 2 * $4 + 10 {
	printf "note: %s took %ss, more than twice its budget of %ss\n", $1, $3, $4 }'
echo
if [ ${#failed_names[@]} -gt 0 ]; then
	echo "failed: ${failed_names[*]}"
	for i in "${!failed_names[@]}"; do
		printf '  %s: %s\n' "${failed_names[$i]}" "${failed_why[$i]}"
	done
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
