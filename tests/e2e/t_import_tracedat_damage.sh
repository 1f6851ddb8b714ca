# Damage that passes libtracecmd's own reading but breaks what the libraries
# trust, made by hand in a fixture (compressed with zstd) and in its version 6
# and uncompressed version 7 conversions: each is refused before the
# libraries see it (a compressed chunk after a CPU's first: as ratrace's
# reader decompresses it), with one line naming the file, the offset and the
# fault; the database stays as it was and no new one appears.
# test: budget=12
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
cd "$TMP" || fail "cd"
conv=()
[ "$(id -u)" -eq 0 ] && conv=(unshare -m)	# trace-cmd mounts tracefs if it can: not here
"${conv[@]}" trace-cmd convert --file-version 6 -i "$RA_FIXTURES/seq128.dat" -o v6.dat \
	>/dev/null 2>&1 || fail "convert to version 6"
"${conv[@]}" trace-cmd convert --compression none -i "$RA_FIXTURES/seq128.dat" -o v7.dat \
	>/dev/null 2>&1 || fail "convert to uncompressed version 7"
ra-import -q -o keep.db "$RA_FIXTURES/nvme-readahead.blktrace.0" || fail "base import"
before=$(q keep.db .dump | sha256sum)
for f in v6.dat v7.dat; do
	rm -f ok.db*
	ra-import -q -o ok.db "$f" || fail "the undamaged $f is refused"
done

# damage KIND SRC: writes damaged.dat, prints the offset the error must name
damage() {
	python3 - "$RA_TOP/tests/tools" "$1" "$2" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import tracedat
kind, src = sys.argv[2], sys.argv[3]
d = bytearray(open(src, "rb").read())
le = lambda at, v, n: d.__setitem__(slice(at, at + n), v.to_bytes(n, "little"))
at = None
if src.endswith("zstd.dat"):
    page_at, cpu = tracedat.buffer_v7(bytes(d))
    secs = {sid: off for off, sid, _f, _s in tracedat.sections_v7(bytes(d))}
    if kind == "chunk":
        entry, off, size = cpu[1]
        at = off + 4                          # the chunk count, then chunk 0
    elif kind == "chunk_last":                # left to the reader: checked as it is read
        entry, off, size = cpu[1]
        at = off + 4
        for _ in range(struct.unpack_from("<I", d, off)[0] - 1):
            at += 8 + struct.unpack_from("<I", d, at)[0]
    else:
        at = secs[16]
    if not kind.startswith("chunk"):
        at += 16                              # the header info's compressed data
    d[at + 8:at + 12] = b"\xde\xad\xbe\xef"   # the zstd frame's magic, after its sizes
    at += 8
    open("damaged.dat", "wb").write(d)
    print(at)
    sys.exit(0)
elif src.endswith("v6.dat"):
    t = tracedat.parse_v6(bytes(d))
    opt = {oid: (p, size) for oid, p, size in t["option_at"]}
    cpu = t["cpu_at"]
else:
    page_at, cpu = tracedat.buffer_v7(bytes(d))
    secs = {sid: off for off, sid, _f, _s in tracedat.sections_v7(bytes(d))}
    opt = {oid: (p, size) for oid, p, size in tracedat.options_v7(bytes(d))}
if kind in ("VERSION", "UNAME", "TRACECLOCK"):
    p, size = opt[{"VERSION": 9, "UNAME": 5, "TRACECLOCK": 4}[kind]]
    d[p + size - 1] = ord("x")               # its NUL
    at = p - 6
elif kind in ("GUEST", "HOOK"):
    extra = (13, b"vm1\0" + struct.pack("<QIIIII", 7, 2, 5, 4242, 0, 4243)) if kind == "GUEST" \
        else (6, b"sched:sched_switch,x/sched:sched_wakeup\0")
    pages = [[t["cpu_data"][c][i:i + 4096] for i in range(0, len(t["cpu_data"][c]), 4096)]
             for c in range(len(t["cpu_data"]))]
    keep = {tracedat.format_id(f) for _, fmts in t["systems"] for f in fmts}
    tracedat.write_v6(t, pages, keep, "damaged.dat", [extra])
    t2 = tracedat.parse_v6(open("damaged.dat", "rb").read())
    p = t2["option_at"][-1][1]
    print(p + 16 if kind == "GUEST" else p - 6)   # the first cpu id; the option
    sys.exit(0)
elif kind == "header_page":
    p = (d.index(b"header_page\0") + 12 + 8) if src.endswith("v6.dat") else secs[16] + 16 + 12 + 8
    d[p + 12:p + 21] = b"timestamq"
    at = p
elif kind == "header_page_size":
    p = secs[16] + 16 + 12
    le(p, 1 << 20, 8)
    at = p
elif kind == "event_format_size":
    p = secs[18] + 16 + 4                     # system count, first name
    p = d.index(b"\0", p) + 1 + 4             # its format count
    le(p, 1 << 40, 8)
    at = p
elif kind == "page_size":
    le(page_at, 0, 4)
    at = page_at
else:
    entry, off, size = cpu[1 if kind == "commit" else 0]
    page = off + (4096 if kind == "padding" else 0)
    if kind == "commit":
        le(page + 8, 8192, 8)
        at = page + 8
    elif kind == "event":
        le(page + 8, 20, 8)
        le(page + 16, 28, 4)                  # type_len 28: 112 bytes of data
        at = page + 16
    elif kind == "padding":
        le(page + 16, 29, 4)
        le(page + 20, 0xfffffff0, 4)
        at = page + 20
    elif kind == "lost":
        le(page + 8, 4080 | (1 << 30), 8)
        at = page + 8
    elif kind == "pages":
        le(entry + (8 if src.endswith("v6.dat") else 12), size - 100, 8)
        at = entry
open("damaged.dat", "wb").write(d)
print(at)
PY
}

# expect KIND SRC FAULT: the import of the damaged copy fails as it must
expect() {
	local off
	off=$(damage "$1" "$2") || fail "$1: cannot damage $2"
	ra-import -o keep.db damaged.dat >out 2>err
	check_eq "$? $(wc -l < err)" "2 1" "$1 in $2: exit status 2, one line"
	check_grep "^ra-import: 'damaged.dat': offset $off: $3" err "$1 in $2: $(cat err)"
	check_eq "$(q keep.db .dump | sha256sum)" "$before" "$1 in $2: the database as it was"
	rm -f new.db*
	ra-import -q -o new.db damaged.dat 2>/dev/null && fail "$1 in $2: imported into a new database"
	[ -e new.db ] && fail "$1 in $2: a new database appeared"
	return 0
}

cp "$RA_FIXTURES/seq128.dat" zstd.dat
expect chunk zstd.dat "cpu 1 data of buffer '' does not decompress: Unknown frame descriptor$"
expect chunk_last zstd.dat "cpu 1 data of buffer '' does not decompress: Unknown frame descriptor$"
expect header_info zstd.dat "header info section does not decompress: Unknown frame descriptor$"
expect VERSION v6.dat "VERSION option of 21 bytes is not NUL-terminated$"
expect UNAME v6.dat "UNAME option of 32 bytes is not NUL-terminated$"
expect TRACECLOCK v6.dat "TRACECLOCK option of 67 bytes is not NUL-terminated$"
expect VERSION v7.dat "VERSION option of 21 bytes is not NUL-terminated$"
expect GUEST v6.dat "GUEST option names cpu 5 of 2$"
expect HOOK v6.dat "HOOK option: trace-cmd hooks \(record -H\) are not supported$"
expect header_page v6.dat "header_page does not begin with the 8-byte timestamp field$"
expect header_page v7.dat "header_page does not begin with the 8-byte timestamp field$"
expect header_page_size v7.dat "header_page of 1048576 bytes runs past the end of its header info section$"
expect event_format_size v7.dat "event format of 1099511627776 bytes runs past the end of its event formats section$"
expect page_size v7.dat "BUFFER option's page size 0 is not a power of two from 512 to 1 MiB$"
for f in v6.dat v7.dat; do
	what="cpu 1 data"
	[ $f = v7.dat ] && what="cpu 1 data of buffer ''"
	expect commit $f "$what: sub-buffer commit of 8192 bytes runs past its 4080 bytes$"
	expect event $f "${what/1/0}: event of 112 bytes runs past the committed data$"
	expect padding $f "${what/1/0}: padding length 4294967280 goes backwards$"
	expect lost $f "${what/1/0}: the lost-event count after 4080 committed bytes runs past the sub-buffer$"
	expect pages $f "${what/1/0} of [0-9]+ bytes is not a whole number of 4096-byte pages$"
done
