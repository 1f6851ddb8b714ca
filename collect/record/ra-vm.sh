#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ra-vm: the part of `ra-record --kernel` that boots another kernel. It finds
# the kernel (a Debian series, fetched with apt into a cache, or an image the
# user built), makes the guest's disks and initramfs, boots the kernel in qemu
# with one CPU, runs ra-record inside, and brings the guest's database back.
# ra-record merges that database into the user's; this script never touches it.
#
#   ra-vm fetch KERNEL
#       print the image, the modules directory (or -) and a description,
#       tab-separated, fetching a Debian kernel when it is not in the cache
#   ra-vm run OUTDIR KERNEL FILES_DIR -- RA-RECORD-ARGS... -- CMD...
#       record inside the guest; on success OUTDIR/guest.db, OUTDIR/info
#       (accel, release, image lines) and the guest ra-record's exit status
#       as ours; on failure one line on stderr and exit status 2
#
# Environment (docs/man/ra-record.1): RATRACE_KERNEL_CACHE, RATRACE_VM_ACCEL,
# RATRACE_VM_CPU, RATRACE_VM_MEM, RATRACE_VM_APPEND, RATRACE_VM_QEMU_ARGS,
# RATRACE_VM_MODULES, RATRACE_VM_RETRIES,
# RATRACE_VM_BOOT_TIMEOUT, RATRACE_VM_TIMEOUT, RATRACE_VM_CONSOLE (a file the
# guests' console output is added to), RA_RECORD (the recorder to copy into
# the guest); RATRACE_BTF and RATRACE_PROBE_HIDE are passed to the guest's
# recorder.

set -u
umask 022
export PATH=$PATH:/usr/sbin:/sbin

CACHE=${RATRACE_KERNEL_CACHE:-/var/cache/ratrace/kernels}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
LISTS_MAX_AGE=86400		# seconds before the package lists are read again

ME=ra-record
die() {
	echo "$ME: $*" >&2
	exit 2
}

# ---- kernels ----

# The Debian suite that carries a kernel series.
suite_of() {
	case $1 in
	6.1) echo bookworm ;;
	6.2 | 6.3 | 6.4 | 6.5 | 6.6 | 6.7 | 6.8 | 6.9 | 6.10 | 6.11 | 6.12) echo bookworm-backports ;;
	6.*) echo trixie-backports ;;
	[7-9].*) echo trixie-backports ;;
	*) return 1 ;;
	esac
}

# The archive address, from the machine's own apt sources (deb822 and
# one-line): the first Debian entry that is not the security archive.
archive_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			/^[ \t]*$/ { if (deb && uri && !sec) { print uri; exit } deb = 0; uri = ""; sec = 0; next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { uri = $2; if (uri ~ /security/) sec = 1 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i ~ /security/) sec = 1 }
			tolower($1) == "signed-by:" { if ($2 !~ /debian-archive-keyring/) sec = 1 }
			END { if (deb && uri && !sec) print uri }' "$f" | head -n 1)
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1 == "deb" {
				i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($i !~ /security/ && $(i + 1) ~ /^(bookworm|trixie|forky|sid|unstable|testing|stable)/) { print $i; exit }
			}' "$f")
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	return 1
}

# apt with a state of its own under $CACHE/apt: the machine's sources,
# lists, preferences and keyrings are neither read nor changed.
APT_DIR=$CACHE/apt
apt_opts() {
	echo "-o Dir::State=$APT_DIR/state -o Dir::State::status=$APT_DIR/status" \
		"-o Dir::Cache=$APT_DIR/cache -o Dir::Etc::sourcelist=$APT_DIR/sources.list" \
		"-o Dir::Etc::sourceparts=$APT_DIR/empty -o Dir::Etc::preferences=$APT_DIR/empty/none" \
		"-o Dir::Etc::preferencesparts=$APT_DIR/empty -o Dir::Etc::trusted=$KEYRING" \
		"-o Dir::Etc::trustedparts=$APT_DIR/empty -o APT::Architecture=amd64" \
		"-o APT::Architectures=amd64 -o Debug::NoLocking=1"
}

# Read the package lists when they are missing or older than a day.
apt_update() {
	local uri stamp=$APT_DIR/updated now
	now=$(date +%s)
	if [ -f "$stamp" ] && [ $((now - $(stat -c %Y "$stamp"))) -lt $LISTS_MAX_AGE ]; then
		return 0
	fi
	[ -r "$KEYRING" ] || die "no Debian archive keyring '$KEYRING' (package debian-archive-keyring)"
	uri=$(archive_uri) || die "no Debian archive in the apt sources of this machine"
	mkdir -p "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/empty" ||
		die "cannot make '$APT_DIR'"
	: >"$APT_DIR/status"
	{
		for s in bookworm bookworm-backports trixie-backports; do
			echo "deb [arch=amd64 signed-by=$KEYRING] $uri $s main"
		done
	} >"$APT_DIR/sources.list"
	# shellcheck disable=SC2046
	if ! apt-get -q $(apt_opts) update >"$APT_DIR/update.log" 2>&1; then
		[ -f "$stamp" ] && return 0	# older lists still name the kernels
		die "cannot read the Debian package lists (see $APT_DIR/update.log)"
	fi
	touch "$stamp"
}

# The newest cloud-amd64 image package of series $1 (6.12), or of version $1 (6.12.85).
newest_package() {
	local series=$1 re
	case $series in
	*.*.*) re="^linux-image-${series//./\\.}([-+][-0-9.+a-z]*)?-cloud-amd64\$" ;;
	*) re="^linux-image-${series//./\\.}\\.[0-9][-0-9.+a-z]*-cloud-amd64\$" ;;
	esac
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) pkgnames linux-image- 2>/dev/null | grep -E "$re" | sort -V | tail -n 1
}

# Fetch and unpack package $1 (and, for a split one, its binary and
# modules) into $CACHE/$1_VERSION; print that directory.
fetch_package() {
	local pkg=$1 ver dir tmp deps p
	# shellcheck disable=SC2046
	ver=$(apt-cache $(apt_opts) show "$pkg" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
	[ -n "$ver" ] || die "no version of '$pkg' in the package lists"
	dir=$CACHE/${pkg}_$ver
	if [ -f "$dir/ok" ]; then
		echo "$dir"
		return 0
	fi
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX") || die "cannot write to '$CACHE'"
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	# From 7.x the image package is a meta package over linux-binary and linux-modules.
	# shellcheck disable=SC2046
	deps=$(apt-cache $(apt_opts) show "$pkg=$ver" | awk -F': ' '/^Depends:/ { print $2; exit }' |
		tr ',' '\n' | grep -oE 'linux-(binary|modules)-[^ ]+' | sort -u)
	echo "$ME: fetching $pkg $ver" >&2
	for p in $pkg $deps; do
		# shellcheck disable=SC2046
		(cd "$tmp" && apt-get -q $(apt_opts) download "$p=$ver" >>"$tmp/download.log" 2>&1) ||
			die "cannot download '$p' $ver: $({ grep -E '^E:' "$tmp/download.log" ||
				grep -E '^Err' "$tmp/download.log"; } | head -n 1 | tr -s ' \t' ' ' |
				cut -c1-200)"
	done
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$tmp/root" || die "cannot unpack '$(basename "$p")'"
	done
	rm -f "$tmp"/*.deb
	find "$tmp/root" -name 'vmlinuz*' | grep -q . || die "no kernel image in '$pkg' $ver"
	rm -rf "$dir"	# a fetch that did not end
	mv "$tmp/root" "$dir" || die "cannot store the kernel in '$dir'"
	touch "$dir/ok"
	rm -rf "$tmp"
	trap - EXIT
	echo "$dir"
}

# Print "IMAGE<TAB>MODULES<TAB>DESCRIPTION" for kernel $1.
resolve_kernel() {
	local k=$1 suite pkg dir img mods s
	if [ -f "$k" ]; then
		# its modules: $RATRACE_VM_MODULES, or lib/modules/RELEASE beside boot/vmlinuz-RELEASE
		img=$(readlink -f "$k")
		mods=${RATRACE_VM_MODULES:-$(dirname "$img")/../lib/modules/${img##*/vmlinuz-}}
		[ -d "$mods" ] || mods=-
		printf '%s\t%s\t%s\n' "$img" "$mods" "$k"
		return 0
	fi
	case $k in
	*/*) die "kernel '$k': no such file" ;;
	esac
	# a series (6.12), or one version of it as the package names it (6.12.85)
	case $k in
	[0-9]*.[0-9]*.[0-9]*) suite=$(suite_of "${k%.*}") ;;
	*) suite=$(suite_of "$k") ;;
	esac || die "kernel '$k': not a kernel series (6.1, 6.12, 6.18, 7.3, ...) or an image file"
	mkdir -p "$CACHE" || die "cannot make the kernel cache '$CACHE'"
	# one fetch at a time: the private apt state has no lock of its own here
	# shellcheck disable=SC2015 # die when either the open or the lock fails
	exec 9>>"$CACHE/.lock" && flock -w 900 9 || die "cannot lock the kernel cache '$CACHE'"
	apt_update
	# what the name resolved to, kept while the lists are the same: apt-cache
	# reads all the lists, a second or more each time
	local known=$APT_DIR/resolved.$k stamp
	stamp=$(stat -c %Y "$APT_DIR/updated" 2>/dev/null)
	dir=
	if [ -n "$stamp" ] && [ -f "$known" ]; then
		read -r s pkg dir <"$known" || dir=
		[ "$s" = "$stamp" ] && [ -f "$dir/ok" ] || dir=
	fi
	if [ -z "$dir" ]; then
		pkg=$(newest_package "$k")
		[ -n "$pkg" ] || die "kernel '$k': no cloud-amd64 kernel of that name in $suite"
		dir=$(fetch_package "$pkg") || exit 2
		[ -n "$stamp" ] && printf '%s %s %s\n' "$stamp" "$pkg" "$dir" >"$known.$$" &&
			mv "$known.$$" "$known"
	fi
	img=$(find "$dir/boot" "$dir/usr/lib/modules" -name 'vmlinuz*' 2>/dev/null | head -n 1)
	[ -n "$img" ] || die "kernel '$k': no image in '$pkg'"
	mods=$(find "$dir/lib/modules" "$dir/usr/lib/modules" -mindepth 1 -maxdepth 1 -type d \
		2>/dev/null | head -n 1)
	printf '%s\t%s\t%s\n' "$img" "${mods:--}" "$pkg ($(basename "$dir" | sed 's/.*_//'))"
}

# ---- the guest ----

# Copy file $1 and the shared libraries it needs into $ROOT at their paths.
add_binary() {
	local f lib
	f=$(readlink -f "$1") || return 1
	mkdir -p "$ROOT$(dirname "$2")" && cp -L "$f" "$ROOT$2" || return 1
	for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$ROOT$lib" ] && continue
		mkdir -p "$ROOT$(dirname "$lib")" && cp -L "$lib" "$ROOT$lib" || return 1
	done
}

# The workload's programs: the first word of CMD and tools workloads use.
add_programs() {
	local p path
	for p in "$@" dd cat cp sync fio head tail sleep true false sh bash md5sum sha256sum find xargs; do
		case $p in
		*/*) path=$p ;;
		*) path=$(type -P "$p") || continue ;;
		esac
		# shellcheck disable=SC2015 # skip what is not an executable file
		[ -f "$path" ] && [ -x "$path" ] || continue
		[ -e "$ROOT$path" ] && continue
		add_binary "$path" "$path" || return 1
	done
}

# Module $1 (a name) and the modules it depends on, these first, decompressed
# (busybox insmod reads plain .ko files); the order goes to load.list. A
# module the tree does not hold is taken to be built in. Its dependencies
# are the "depends=" of its .modinfo section (no depmod or modinfo needed).
add_module() {
	local name=$1 path dep ko
	grep -qxF "$name" "$ROOT/lib/modules/done" 2>/dev/null && return 0
	echo "$name" >>"$ROOT/lib/modules/done"
	path=$(find "$MODS" \( -name "$name.ko" -o -name "$name.ko.xz" -o -name "$name.ko.zst" \
		-o -name "$name.ko.gz" \) | head -n 1)
	[ -n "$path" ] || return 0
	ko=$ROOT/lib/modules/$name.ko
	case $path in
	*.xz) xz -dc "$path" ;;
	*.zst) zstd -qdc "$path" ;;
	*.gz) gzip -dc "$path" ;;
	*) cat "$path" ;;
	esac >"$ko" || return 1
	for dep in $(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
		add_module "$dep" || return 1
	done
	echo "$name.ko" >>"$ROOT/lib/modules/load.list"
}

# The modules the guest needs that the kernel may not have built in.
add_modules() {
	local want
	mkdir -p "$ROOT/lib/modules"
	: >"$ROOT/lib/modules/load.list"
	[ "$MODS" != - ] && [ -d "$MODS" ] || return 0
	for want in virtio_pci virtio_blk; do
		add_module "$want" || return 1
	done
}

# Quote $1 for a POSIX shell.
shq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# The guest's /init: mount the disks, record, say how it ended, power off.
write_init() {
	local a args="" envs="" v
	for a in "${RARGS[@]}"; do
		args="$args $(shq "$a")"
	done
	# the recorder's own variables of the dynamic events reach the guest's recorder
	for v in RATRACE_BTF RATRACE_PROBE_HIDE; do
		[ -n "${!v:-}" ] && envs="${envs}export $v=$(shq "${!v}")
"
	done
	cat >"$ROOT/init" <<EOF
#!/bin/sh
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
${envs}mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
# for --throttle: the cgroup v1 blkio controller, where the kernel has it
mount -t tmpfs cgroup /sys/fs/cgroup 2>/dev/null &&
	mkdir -p /sys/fs/cgroup/blkio &&
	mount -t cgroup -o blkio blkio /sys/fs/cgroup/blkio 2>/dev/null
say() { echo "ratrace-guest: \$*" >/dev/ttyS0; }
end() { say "exit \$1"; sync; poweroff -f; reboot -f; }
echo $(shq "$GUEST_HOST") >/proc/sys/kernel/hostname
say "up \$(cat /proc/sys/kernel/osrelease)"
for m in \$(cat /lib/modules/load.list); do
	insmod /lib/modules/\$m 2>/dev/null
done
n=0
while [ ! -b /dev/vdb ] && [ \$n -lt 100 ]; do sleep 0.1; n=\$((n + 1)); done
[ -b /dev/vdb ] || { say "error: no virtio disks (virtio_blk missing?)"; end 2; }
mkdir -p $(shq "$FILES") /out
mount -t ext4 -o noinit_itable,no_prefetch_block_bitmaps /dev/vda $(shq "$FILES") || { say "error: cannot mount the files disk"; end 2; }
mount -t ext4 -o noinit_itable,no_prefetch_block_bitmaps /dev/vdb /out || { say "error: cannot mount the output disk"; end 2; }
cd $(shq "$WORKDIR") 2>/dev/null || cd $(shq "$FILES")
say "recording"
/usr/local/bin/ra-record -o /out/guest.db$args >/out/out 2>/out/log
rc=\$?
cd /
umount /out
umount $(shq "$FILES")
end \$rc
EOF
	chmod 755 "$ROOT/init"
}

make_initramfs() {
	local a
	ROOT=$WORK/root
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,run,etc,var/tmp} ||
		return 1
	cp "$BUSYBOX" "$ROOT/bin/busybox" || return 1
	for a in sh mount umount mkdir insmod sleep poweroff reboot cat sync; do
		ln -s busybox "$ROOT/bin/$a"
	done
	add_binary "$RA_RECORD" /usr/local/bin/ra-record || return 1
	add_programs "${CMD[@]:0:1}" || return 1
	add_modules || return 1
	write_init
	(cd "$ROOT" && find . | cpio -o -H newc --quiet) >"$WORK/initrd" || return 1
	rm -rf "$ROOT"
}

make_disks() {
	local kb
	# the files disk: the directory, with room to spare
	kb=$(du -sk "$FILES" | awk '{ print $1 }')
	kb=$((kb + kb / 4 + 65536))
	truncate -s "${kb}K" "$WORK/files.img" &&
		mkfs.ext4 -q -F -E root_owner=0:0 -d "$FILES" "$WORK/files.img" >/dev/null 2>&1 ||
		return 1
	truncate -s 8G "$WORK/out.img" && mkfs.ext4 -q -F "$WORK/out.img" >/dev/null 2>&1
}

# ---- qemu ----

QEMU_PID=
kill_qemu() {
	[ -n "$QEMU_PID" ] || return 0
	kill "$QEMU_PID" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$QEMU_PID" 2>/dev/null || break
		sleep 0.2
	done
	kill -9 "$QEMU_PID" 2>/dev/null
	wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
}

# The first line of the console log that tells of a crash.
crash_line() {
	grep -m 1 -aE 'Kernel panic|Oops|BUG: |general protection fault|double fault|invalid opcode|kernel BUG' \
		"$WORK/console.log" | tr -d '\r' | sed 's/^\[[ 0-9.]*\] *//'
}
# The last line of the console log, without its time stamp.
last_line() {
	grep -av '^[[:space:]]*$' "$WORK/console.log" | tail -n 1 | tr -d '\r' |
		sed 's/^\[[ 0-9.]*\] *//' | cut -c1-160
}
oopsed() {
	grep -qaE 'Oops|BUG: |general protection fault|double fault|invalid opcode|kernel BUG|RIP: ' \
		"$WORK/console.log"
}

# The recorder that started us is gone (killed): its guest goes too.
PARENT=$PPID
parent_gone() {
	local _pid _comm _state ppid
	read -r _pid _comm _state ppid _ </proc/$$/stat
	[ "$ppid" != "$PARENT" ]
}

# Boot the guest once with accelerator $1, limits $2 (to userspace) and $3
# (to the end) in seconds; with $4 = probe, only until userspace. Sets
# OUTCOME to ok, noqemu, noboot, bootpanic, crash, reset, timeout (probe: up);
# GUEST_RC for ok; UP to 1 when userspace was reached.
boot_once() {
	local accel=$1 limit_boot=$2 limit=$3 probe=${4:-} start now up=0 cpu append
	cpu=${RATRACE_VM_CPU:-}
	if [ -z "$cpu" ]; then
		[ "$accel" = kvm ] && cpu=host || cpu=Nehalem
	fi
	append="console=ttyS0 panic=-1 oops=panic loglevel=5 rdinit=/init ${RATRACE_VM_APPEND:-}"
	: >"$WORK/console.log"
	# RATRACE_VM_QEMU_ARGS is split at spaces on purpose
	# shellcheck disable=SC2086
	qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp 1 -m "${RATRACE_VM_MEM:-1024}" \
		-nodefaults -no-reboot -display none -serial "file:$WORK/console.log" \
		-kernel "$IMAGE" -initrd "$WORK/initrd" -append "$append" \
		-drive "file=$WORK/files.img,format=raw,if=virtio" \
		-drive "file=$WORK/out.img,format=raw,if=virtio" ${RATRACE_VM_QEMU_ARGS:-} \
		</dev/null >"$WORK/qemu.log" 2>&1 &
	QEMU_PID=$!
	start=$(date +%s)
	OUTCOME=
	while :; do
		if grep -qa '^ratrace-guest: exit ' "$WORK/console.log"; then
			GUEST_RC=$(grep -a -m 1 '^ratrace-guest: exit ' "$WORK/console.log" |
				tr -d '\r' | awk '{ print $3 }')
			OUTCOME=ok
			break
		fi
		[ $up = 0 ] && grep -qa '^ratrace-guest: up' "$WORK/console.log" && up=1
		if [ $up = 1 ] && [ "$probe" = probe ]; then
			OUTCOME=up
			break
		fi
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			wait "$QEMU_PID" 2>/dev/null
			local qrc=$?
			QEMU_PID=
			grep -qa '^ratrace-guest: exit ' "$WORK/console.log" && continue
			if [ ! -s "$WORK/console.log" ] && [ $qrc -ne 0 ]; then
				OUTCOME=noqemu
			elif [ -n "$(crash_line)" ]; then
				if [ $up = 0 ] && ! oopsed; then OUTCOME=bootpanic; else OUTCOME=crash; fi
			else
				OUTCOME=reset
			fi
			break
		fi
		if parent_gone; then
			OUTCOME=orphan
			break
		fi
		now=$(date +%s)
		if [ $up = 0 ] && [ $((now - start)) -ge "$limit_boot" ]; then
			OUTCOME=noboot
			break
		fi
		if [ $((now - start)) -ge "$limit" ]; then
			OUTCOME=timeout
			break
		fi
		sleep 0.2
	done
	kill_qemu
	UP=$up
	if [ -n "${RATRACE_VM_CONSOLE:-}" ]; then
		cat "$WORK/console.log" >>"$RATRACE_VM_CONSOLE" 2>/dev/null
	fi
}

# Does KVM run this kernel here? Some machines offer /dev/kvm and hang in
# it (nested virtualization): a short boot says, and the answer is kept for
# the machine's boot.
kvm_works() {
	local stamp boot
	[ -w /dev/kvm ] || return 1
	boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	stamp=$CACHE/kvm-probe
	if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$boot" ]; then
		[ "$(sed -n 2p "$stamp")" = yes ]
		return
	fi
	boot_once kvm 20 20 probe
	local ans=no
	[ "$UP" = 1 ] && ans=yes
	mkdir -p "$CACHE" 2>/dev/null && printf '%s\n%s\n' "$boot" "$ans" >"$stamp" 2>/dev/null
	[ $ans = yes ]
}

pick_accel() {
	case ${RATRACE_VM_ACCEL:-auto} in
	kvm | tcg) echo "$RATRACE_VM_ACCEL" ;;
	auto) if kvm_works; then echo kvm; else echo tcg; fi ;;
	*) die "bad RATRACE_VM_ACCEL '$RATRACE_VM_ACCEL' (want kvm, tcg or auto)" ;;
	esac
}

# Pass on what the guest's workload wrote to stdout, and what the guest's
# recorder said on stderr but its lines about the guest database.
relay_log() {
	[ -f "$WORK/out" ] && cat "$WORK/out"
	[ -f "$WORK/log" ] || return 0
	grep -v -E "^ra-record: run [0-9]+: .* events in '/out/guest.db'|the rootfs file system" \
		"$WORK/log" |
		sed "s/^ra-record: /$ME: $NAME: /" >&2
}

cmd_run() {
	local out=$1 kernel=$2 retries try accel line
	FILES=$(readlink -f "$3") || die "no files directory '$3'"
	shift 3
	[ "${1:-}" = -- ] && shift
	RARGS=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		RARGS+=("$1")
		shift
	done
	RARGS+=("$@")
	[ "${1:-}" = -- ] && shift
	CMD=("$@")
	NAME="kernel $kernel"
	# the guest's name, as its runs store it: this machine's, marked
	GUEST_HOST="$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)-guest"
	WORKDIR=$PWD
	RA_RECORD=${RA_RECORD:-$(dirname "$(readlink -f "$0")")/ra-record}
	[ -x "$RA_RECORD" ] || die "no recorder '$RA_RECORD' to copy into the guest"
	BUSYBOX=$(command -v busybox) || die "no busybox (Debian: busybox-static)"
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (Debian: qemu-system-x86)"
	[ -d "$FILES" ] || die "no files directory '$FILES'"
	line=$(resolve_kernel "$kernel") || exit 2
	IFS=$'\t' read -r IMAGE MODS DESC <<<"$line"
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/ra-vm.XXXXXX") || die "cannot make a temporary directory"
	trap 'kill_qemu; rm -rf "$WORK"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	trap 'exit 131' QUIT
	make_initramfs || die "$NAME: cannot build the guest's initramfs"
	make_disks || die "$NAME: cannot make the guest's disks from '$FILES'"
	accel=$(pick_accel) || exit 2
	retries=${RATRACE_VM_RETRIES:-2}
	for ((try = 0; ; try++)); do
		boot_once "$accel" "${RATRACE_VM_BOOT_TIMEOUT:-120}" "${RATRACE_VM_TIMEOUT:-1800}"
		case $OUTCOME in
		ok) break ;;
		noqemu)
			die "$NAME: qemu could not boot it: $(grep -v '^$' "$WORK/qemu.log" | tail -n 1)"
			;;
		noboot)
			[ -s "$WORK/console.log" ] ||
				die "$NAME: no output within ${RATRACE_VM_BOOT_TIMEOUT:-120} s (not a bootable image?)"
			die "$NAME: did not reach userspace within ${RATRACE_VM_BOOT_TIMEOUT:-120} s" \
				"(last message: $(last_line))"
			;;
		bootpanic) die "$NAME: panic at boot: $(crash_line)" ;;
		timeout) die "$NAME: the guest did not end within ${RATRACE_VM_TIMEOUT:-1800} s" ;;
		orphan)
			rm -f "$out/guest.db" "$out/info"
			rmdir "$out" 2>/dev/null	# the recorder's, which cannot remove it now
			exit 2
			;;
		crash | reset)
			line=$(crash_line)
			[ -n "$line" ] || line="the guest reset without a message"
			if [ "$try" -ge "$retries" ]; then
				local times="$((try + 1)) times"
				[ "$try" -eq 0 ] && times=once
				die "$NAME: crashed $times$([ "$UP" = 1 ] && echo " during the recording" || echo " at boot"): $line"
			fi
			echo "$ME: $NAME: the guest crashed ($line); booting it again ($((try + 2)) of $((retries + 1)))" >&2
			# fresh disks: nothing the crashed guest wrote is kept
			rm -f "$WORK/files.img" "$WORK/out.img"
			make_disks || die "$NAME: cannot make the guest's disks from '$FILES'"
			;;
		esac
	done
	debugfs -R "dump /log $WORK/log" "$WORK/out.img" >/dev/null 2>&1
	debugfs -R "dump /out $WORK/out" "$WORK/out.img" >/dev/null 2>&1
	relay_log
	case $GUEST_RC in
	'' | *[!0-9]*) die "$NAME: the guest ended without a status" ;;
	esac
	if [ "$GUEST_RC" -ge 2 ] && [ "$GUEST_RC" -lt 128 ]; then
		line=$(grep -a -m 1 '^ratrace-guest: error' "$WORK/console.log" | tr -d '\r')
		[ -n "$line" ] && die "$NAME: ${line#ratrace-guest: error: }"
		exit "$GUEST_RC"
	fi
	debugfs -R "dump /guest.db $out/guest.db" "$WORK/out.img" >/dev/null 2>&1
	[ -s "$out/guest.db" ] || die "$NAME: the guest left no database"
	{
		echo "accel $accel"
		echo "release $(grep -a -m 1 '^ratrace-guest: up ' "$WORK/console.log" | tr -d '\r' | awk '{ print $3 }')"
		echo "image $DESC"
	} >"$out/info"
	exit "$GUEST_RC"
}

case ${1:-} in
fetch)
	[ $# -eq 2 ] || die "usage: ra-vm fetch KERNEL"
	resolve_kernel "$2"
	;;
run)
	[ $# -ge 4 ] || die "usage: ra-vm run OUTDIR KERNEL FILES_DIR -- ARGS -- CMD"
	shift
	cmd_run "$@"
	;;
*)
	die "usage: ra-vm fetch KERNEL | ra-vm run OUTDIR KERNEL FILES_DIR -- ARGS -- CMD"
	;;
esac
