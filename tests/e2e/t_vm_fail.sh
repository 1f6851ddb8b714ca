# Guests that fail: an image that is no kernel, a kernel that hangs before
# userspace, one that panics at boot, one that crashes during the recording
# (retried, by design, a bounded number of times). Each ends in one line
# naming the kernel and what happened, within its time limit, exit status 2,
# the database as it was, and no qemu or temporary directory left behind.
# test: needs=root,qemu cpu=1 budget=69
. "$(dirname "$0")/lib.sh"
need_vm
make_tmp
export TMPDIR=$TMP
mkdir "$TMP/files"
echo data > "$TMP/files/f"
DB=$TMP/keep.db
ra-import -o "$DB" "$RA_FIXTURES/seq128.dat" 2>/dev/null || fail "make a database"
sum=$(sha256sum "$DB" | cut -d' ' -f1)
# a real kernel, fetched once into the cache
image=$(ra-vm fetch 6.18 | cut -f1) || fail "fetch 6.18"
ln -s "$image" "$TMP/vmlinuz" || fail "link the image"
image=$TMP/vmlinuz

# guest_fails NAME LIMIT_S PATTERN KERNEL [CMD...]: exit 2, one line on stderr
# matching PATTERN, within LIMIT_S seconds, nothing changed or left.
guest_fails() {
	local name=$1 limit=$2 pattern=$3 kernel=$4 start t
	shift 4
	start=$(date +%s)
	ra-record -o "$DB" --kernel "$kernel" --kernel-files "$TMP/files" -- "${@:-true}" \
		> "$TMP/out" 2> "$TMP/err"
	rc=$?
	t=$(( $(date +%s) - start ))
	note "$name: $(cat "$TMP/err") ($t s)"
	check_eq "$rc" 2 "$name: exit status"
	check_cmp "$t" -le "$limit" "$name: within the limit"
	check_eq "$(grep -vc "booting it again" "$TMP/err")" 1 "$name: one line"
	check_grep "$pattern" "$TMP/err" "$name: what happened"
	check_eq "$(sha256sum "$DB" | cut -d' ' -f1)" "$sum" "$name: the database is unchanged"
	check_eq "$(vm_left)" 0 "$name: no qemu left"
	check_eq "$(vm_dirs_left)" 0 "$name: no temporary directories left"
}

# Usage and a database the runs cannot join are refused before a guest boots.
usage_fails() {
	local what=$1 msg=$2
	shift 2
	ra-record "$@" -- true > "$TMP/out" 2> "$TMP/err"
	check_eq "$?" 2 "$what: exit status"
	check_eq "$(cat "$TMP/err")" "ra-record: $msg" "$what: the message"
}
usage_fails "no files" "--kernel needs the guest's files: --kernel-files DIR" -o "$DB" --kernel 6.18
usage_fails "files without a kernel" "--kernel-files is for --kernel" -o "$DB" --kernel-files "$TMP/files"
usage_fails "files not a directory" "--kernel-files '$TMP/files/f' is not a directory" \
	-o "$DB" --kernel 6.18 --kernel-files "$TMP/files/f"
usage_fails "no series" "kernel '5.10': not a kernel series (6.1, 6.12, 6.18, 7.3, ...) or an image file" \
	-o "$DB" --kernel 5.10 --kernel-files "$TMP/files"
echo junk > "$TMP/junk.db"
usage_fails "not a database" "'$TMP/junk.db' is not a ratrace database (file is not a database)" \
	-o "$TMP/junk.db" --kernel 6.18 --kernel-files "$TMP/files"
check_eq "$(sha256sum "$DB" | cut -d' ' -f1)" "$sum" "usage: the database is unchanged"

head -c $((4 << 20)) /dev/urandom > "$TMP/garbage.img"
guest_fails "not a kernel" 30 "^ra-record: kernel $TMP/garbage.img: " "$TMP/garbage.img"

# An init that never starts the recording: the kernel boots, the guest hangs.
RATRACE_VM_APPEND="rdinit=/bin/cat" RATRACE_VM_BOOT_TIMEOUT=12 \
	guest_fails "hang" 30 "^ra-record: kernel $image: did not reach userspace within 12 s" "$image"

# No init at all: the kernel panics at boot (not retried: it is no crash).
RATRACE_VM_APPEND="rdinit=/nonexistent" \
	guest_fails "panic at boot" 40 "^ra-record: kernel $image: panic at boot: Kernel panic - not syncing: " "$image"

# The workload crashes the kernel: retried once (RATRACE_VM_RETRIES=1), then given up.
RATRACE_VM_RETRIES=1 guest_fails "crash while recording" 90 \
	"^ra-record: kernel 6.18: crashed 2 times during the recording: .*sysrq" 6.18 \
	sh -c "echo c > /proc/sysrq-trigger"
check_grep "^ra-record: kernel 6.18: the guest crashed \(.*\); booting it again \(2 of 2\)" "$TMP/err" \
	"the retry is said"

# A database that does not exist is not made by a guest that failed.
RATRACE_VM_APPEND="rdinit=/nonexistent" ra-record -o "$TMP/new.db" --kernel "$image" \
	--kernel-files "$TMP/files" -- true 2>/dev/null
check_eq "$?" 2 "a failed guest into a new database: exit status"
check_eq "$(find "$TMP" -maxdepth 1 -name '*new.db*' | wc -l)" 0 "no database made"

# SIGINT while the guest runs: the guest is stopped, exit status 130 within
# seconds, nothing merged, nothing left.
ra-record -o "$DB" --kernel 6.18 --kernel-files "$TMP/files" -- sleep 120 > "$TMP/out" 2> "$TMP/err" &
rec_pid=$!
on_exit "kill $rec_pid"
for _ in $(seq 100); do
	[ "$(vm_left)" -gt 0 ] && break
	sleep 0.2
done
check_cmp "$(vm_left)" -gt 0 "SIGINT: the guest runs"
sleep 5
start=$(date +%s)
kill -INT "$rec_pid"
wait "$rec_pid"
check_eq "$?" 130 "SIGINT: exit status"
check_cmp "$(( $(date +%s) - start ))" -le 5 "SIGINT: ends within 5 s"
check_eq "$(sha256sum "$DB" | cut -d' ' -f1)" "$sum" "SIGINT: the database is unchanged"
check_eq "$(vm_left)" 0 "SIGINT: no qemu left"
check_eq "$(vm_dirs_left)" 0 "SIGINT: no temporary directories left"
