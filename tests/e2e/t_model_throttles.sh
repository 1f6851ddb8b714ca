# The device model on three blkio throttles 10x apart in IOPS and in
# bandwidth (100 IOPS / 10 MB/s, 320 / 64, 1000 / 100), each swept with a
# single dd reader (bs=4k) and with fio, 4 psync jobs for 3 s (which ask
# POSIX_FADV_SEQUENTIAL: the kernel's windows are twice read_ahead_kb). The
# settings sit around the throttle's knee (bps / IOPS): two below it, the
# first one at 80% or more, one well above.
# Ground truths: the throttle's 1 / IOPS and bps; the measured throughput of
# each run (the /sys/block stat delta over the wall time for dd, fio's own
# bandwidth); the truth of the sweep, the smallest read_ahead_kb whose
# measured throughput reaches 80% of the best, which must also be the
# throttle's (the smallest power of two x ratio reaching 0.8 x bps / IOPS).
# - the window model: access within 10% of 1 / IOPS, bandwidth within 10%
#   of bps, the max form;
# - predicted throughput within 15% of the measured at every setting, and
#   every run set explained;
# - the advice equals both truths, in read_ahead_kb (half the window for fio);
# - on two throttles, --sweep read_ahead_kb=auto reaches the same advice in
#   fewer runs than a full sweep's nine settings.
# A sweep whose checks miss is recorded twice more (its runs join the pool:
# the medians of three) before the test judges: other tests share the CPUs,
# and a reader short of CPU does not keep a throttle busy. The three
# throttles are three loop devices, recorded at the same time (each throttle
# is its own device's, and each recorder traces its own device).
# test: needs=root,tracefs,fio cpu=1 budget=57
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
command -v fio >/dev/null || skip "no fio"
make_tmp
# lane_disk NAME DD_MB: a loop device for one throttle, with the dd file of
# DD_MB and fio's four files; LANE_LOOP_NAME, LANE_MNT, LANE_KDEV of NAME
lane_disk() {
	make_loop $(($2 + 4 * 64 + 64))
	make_file "$MNT/f" "$2"
	mkdir -p "$MNT/fio"
	for j in 0 1 2 3; do make_file "$MNT/fio/r.$j.0" 64; done
	eval "${1}_LOOP_NAME=$LOOP_NAME ${1}_MNT=$MNT ${1}_KDEV=$(loop_kdev)"
}
lane_disk A 16
lane_disk B 100
lane_disk C 150

# workload dd|fio BPS: dd reads 1.5 s of the plateau, fio runs 3 s: long
# enough that neither the allowance a throttle grants at the start (a slice,
# 100 ms of it) nor the I/Os fio's four ramp-ups spend (they leave bytes that
# the first steady windows get) weigh much
workload() {
	if [ "$1" = dd ]; then
		echo dd if="$MNT/f" of=/dev/null bs=4k count=$(( $2 * 15 / 10 / 4096 ))
	else
		echo fio --name=r --rw=read --bs=4k --numjobs=4 --size=64M --ioengine=psync \
			--directory="$MNT/fio" --runtime=3 --output-format=json
	fi
}

record() {	# DB IOPS BPS KBS WORKLOAD...
	local db=$1 iops=$2 bps=$3 kbs=$4; shift 4
	ra-record -q -o "$db" -d "$LOOP_NAME" --sweep "read_ahead_kb=$kbs" "${COLD[@]}" \
		--throttle "$LOOP_NAME=iops:$iops,bps:$bps" -- "$@" >/dev/null 2>"$TMP/err" ||
		fail "record $kbs: $(cat "$TMP/err")"
}

last_run() { q "$1" "SELECT MAX(run_id) FROM runs"; }

# the throttle's truth: the smallest setting of KBS whose window (x RATIO)
# reaches 80% of the bandwidth, at min(IOPS x window, BPS)
throttle_truth() {	# IOPS BPS RATIO KBS
	local kb
	for kb in ${4//,/ }; do
		if [ $(( $1 * kb * 1024 * $3 * 10 )) -ge $(( $2 * 8 )) ]; then
			echo "$kb"
			return
		fi
	done
}

# the sweep's truth, from the measured medians of its run sets
measured_truth() {	# DB RUN
	q "$1" "SELECT MIN(read_ahead_kb) FROM model_sets WHERE run_id = $2 AND dev = $kdev
		AND measured_bps >= 0.8 * (SELECT MAX(measured_bps) FROM model_sets
		WHERE run_id = $2 AND dev = $kdev)"
}

misses() {	# DB RUN IOPS BPS RATIO KBS: what does not hold, one line each
	local db=$1 run=$2 iops=$3 bps=$4 ratio=$5 kbs=$6
	q "$db" "SELECT 'model ' || form || ' ' || access_ns || ' ' || bandwidth_bps
		FROM device_models WHERE run_id = $run AND dev = $kdev AND timing = 'window'
		AND chosen AND NOT (form = 'max' AND ABS(access_ns - 1e9 / $iops) <= 0.1e9 / $iops
		AND ABS(bandwidth_bps - $bps) <= 0.1 * $bps)
		UNION ALL SELECT 'prediction at ' || read_ahead_kb || ': ' || predicted_bps || ' for '
		|| measured_bps FROM model_sets WHERE run_id = $run AND dev = $kdev
		AND NOT (ABS(predicted_bps - measured_bps) <= 0.15 * measured_bps AND explained = 1)
		UNION ALL SELECT 'sets ' || COUNT(*) FROM model_sets WHERE run_id = $run
		AND dev = $kdev HAVING COUNT(*) != $(echo "$kbs" | tr ',' '\n' | wc -l)"
	local want got truth
	want=$(throttle_truth "$iops" "$bps" "$ratio" "$kbs")
	truth=$(measured_truth "$db" "$run")
	got=$(q "$db" "SELECT COALESCE(recommended_kb, '-') || ' ' || status FROM device_advice
		WHERE run_id = $run AND dev = $kdev")
	[ "$truth" = "$want" ] || echo "measured truth $truth, the throttle's $want"
	[ "$got" = "$want ok" ] || echo "advice $got, truth $want"
}

sweep() {	# NAME IOPS BPS RATIO KBS dd|fio
	local name=$1 iops=$2 bps=$3 ratio=$4 kbs=$5 w=$6 db=$TMP/$1.db run m
	note "$name: $iops IOPS, $bps B/s, $w, read_ahead_kb $kbs"
	# shellcheck disable=SC2046
	record "$db" "$iops" "$bps" "$kbs" $(workload "$w" "$bps")
	run=$(last_run "$db")
	m=$(misses "$db" "$run" "$iops" "$bps" "$ratio" "$kbs")
	if [ -n "$m" ]; then
		note "$name: twice more, after: $m"
		# shellcheck disable=SC2046
		record "$db" "$iops" "$bps" "$kbs" $(workload "$w" "$bps")
		# shellcheck disable=SC2046
		record "$db" "$iops" "$bps" "$kbs" $(workload "$w" "$bps")
		run=$(last_run "$db")
		m=$(misses "$db" "$run" "$iops" "$bps" "$ratio" "$kbs")
	fi
	q "$db" "SELECT form, ROUND(access_ns / 1e6, 4), ROUND(bandwidth_bps / 1e6, 2), ROUND(rms_rel_err, 4)
		FROM device_models WHERE run_id = $run AND dev = $kdev AND timing = 'window' AND chosen" |
		sed "s/^/# $name model (ms, MB\/s): /"
	q "$db" "SELECT read_ahead_kb, window_bytes / 1024, ROUND(predicted_bps / 1e6, 1),
		ROUND(measured_bps / 1e6, 1), ROUND((predicted_bps - measured_bps) * 100 / measured_bps, 1),
		pace FROM model_sets WHERE run_id = $run AND dev = $kdev" |
		sed "s/^/# $name set (kb window pred meas err% pace): /"
	q "$db" "SELECT recommended_kb, status, reasoning FROM device_advice WHERE run_id = $run
		AND dev = $kdev" | sed "s/^/# $name advice: /"
	[ -z "$m" ] || fail "$name: $m"
	echo "ok: $name: model within 10% of the throttle, predictions within 15%, advice" \
		"$(throttle_truth "$iops" "$bps" "$ratio" "$kbs") = the measured truth"
	ADVICE=$(throttle_truth "$iops" "$bps" "$ratio" "$kbs")
}

auto() {	# NAME IOPS BPS dd|fio ADVICE
	local name=$1 db=$TMP/$1-auto.db out runs
	# shellcheck disable=SC2046
	ra-record -q -o "$db" -d "$LOOP_NAME" --sweep read_ahead_kb=auto "${COLD[@]}" \
		--throttle "$LOOP_NAME=iops:$2,bps:$3" -- $(workload "$4" "$3") >"$TMP/auto.out" \
		2>"$TMP/err" || fail "auto sweep $name: $(cat "$TMP/err")"
	out=$(grep '^read_ahead_kb auto:' "$TMP/auto.out")
	note "$name auto: $out ($(q "$db" "SELECT group_concat(label, ' ') FROM runs"))"
	runs=$(q "$db" "SELECT COUNT(*) FROM runs")
	check_eq "$(echo "$out" | sed -n 's/.*: read_ahead_kb \([0-9]*\) (ok)$/\1/p')" "$5" \
		"$name: the automatic sweep's advice is the full sweep's"
	check_cmp "$runs" -lt 9 "$name: in fewer runs than the nine settings of a full sweep"
	check_eq "$(q "$db" "SELECT recommended_kb || ' ' || status FROM device_advice
		WHERE run_id = (SELECT MAX(run_id) FROM runs) AND dev = $kdev")" "$5 ok" \
		"$name: the database holds the advice printed"
}

# lane NAME: the sweeps of one throttle on its own loop device, in a subshell
# whose output goes to $TMP/NAME.log; "ok" or "FAIL" lines as ever
lane() {
	local name=$1
	eval "LOOP_NAME=\$${name}_LOOP_NAME MNT=\$${name}_MNT kdev=\$${name}_KDEV"
	COLD=(--evict "$MNT")	# its own files: the other lanes read theirs meanwhile
	TMP=$TMP/lane.$name
	mkdir -p "$TMP"
	case $name in
	A)
		sweep A-dd 100 10000000 1 32,64,128,1024 dd
		auto A-dd 100 10000000 dd "$ADVICE"
		sweep A-fio 100 10000000 2 16,32,64,256 fio ;;
	B)
		sweep B-dd 320 64000000 1 64,128,256,2048 dd
		auto B-dd 320 64000000 dd "$ADVICE"
		sweep B-fio 320 64000000 2 32,64,128,512 fio ;;
	C)
		sweep C-dd 1000 100000000 1 32,64,128,1024 dd
		sweep C-fio 1000 100000000 2 16,32,64,256 fio ;;
	esac
}
# Under the sanitizers the recorder costs several times its CPU, and three
# lanes at once left the fastest throttle's reader short of it (C-dd at 64 KiB
# measured 51 MB/s of the 61 the device gave): its throughput was the CPU's.
# The lanes then run one after another, each with the machine to itself.
one_at_a_time=false
[[ $RA_BIN == *-san* ]] && one_at_a_time=true
pids=()
rcs=""
for l in A B C; do
	(trap - EXIT; lane $l) > "$TMP/$l.log" 2>&1 &
	pids+=($!)
	on_exit "kill ${pids[-1]}"
	if $one_at_a_time; then
		wait "${pids[-1]}"
		rcs="$rcs$? "
	fi
done
if ! $one_at_a_time; then
	for p in "${pids[@]}"; do
		wait "$p"
		rcs="$rcs$? "
	done
fi
cat "$TMP/A.log" "$TMP/B.log" "$TMP/C.log"
check_eq "$rcs" "0 0 0 " "the three throttles' sweeps"
