#!/usr/bin/env python3
# Make the seed corpora of the libFuzzer harnesses from the fixtures:
#
#   tests/fuzz/make_corpus.py FIXTURES OUTDIR RA_IMPORT
#
# trace.dat: each fixture is converted to version 6 by trace-cmd, and a slice
# of it written: the same header, options and trace clock, the formats of the
# events its kept pages hold (and of readahead:*), a few command lines, no
# kallsyms or printk formats, and the first pages of each CPU that hold
# readahead, filemap or block events. trace-cmd converts each slice back to
# version 7, uncompressed and zstd-compressed.
# decode: the formats and records of those pages, in fuzz_decode's layout.
# blktrace: runs of records of the blktrace fixture, also in the other byte
# order, as version 8, and as two per-CPU files.
# db: databases that ra-import makes of blktrace slices (current schema and
# a copy set to version 2, 512-byte pages), and a few that are not ratrace's.
import os
import sqlite3
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from tracedat import events_of_page, format_id, parse_v6, write_v6  # noqa: E402

PAGES_PER_CPU = 2
KEEP_SYSTEMS = (b"readahead", b"filemap", b"block")


def pick_pages(t, wanted_ids):
    ps = t["page"]
    picked = []
    for cpu_data in t["cpu_data"]:
        pages = []
        for off in range(0, len(cpu_data) - ps + 1, ps):
            page = cpu_data[off:off + ps]
            if any(i in wanted_ids for i, _ in events_of_page(page)):
                pages.append(page)
            if len(pages) == PAGES_PER_CPU:
                break
        if not pages and cpu_data:
            pages.append(cpu_data[:ps])
        picked.append(pages)
    return picked


def trace_cmd_convert(src, dst, args):
    cmd = ["trace-cmd", "convert"] + args + ["-i", src, "-o", dst]
    if os.geteuid() == 0:
        cmd = ["unshare", "-m"] + cmd   # trace-cmd mounts tracefs when it can
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def decode_seed(t, pages, path):
    """fuzz_decode's input: formats of the events in @pages, then their records."""
    by_id = {}
    for name, fmts in t["systems"]:
        for f in fmts:
            by_id[format_id(f)] = (name, f)
    recs = [rec for plist in pages for page in plist for _, rec in events_of_page(page)]
    ids = []
    for i, _ in ((i, r) for plist in pages for page in plist for i, r in events_of_page(page)):
        if i in by_id and i not in ids:
            ids.append(i)
    out = bytearray(b"\0")
    for i in ids[:8]:
        name, f = by_id[i]
        out += name + b"\0" + f + b"\0"
    out += b"\0"
    kept = [r for r in recs if int.from_bytes(r[:2], "little") in ids[:8]][:64]
    for r in kept:
        out += len(r).to_bytes(2, "little") + r
    open(path, "wb").write(out)


def tracedat_seeds(fixtures, out, tmp):
    os.makedirs(os.path.join(out, "tracedat"), exist_ok=True)
    os.makedirs(os.path.join(out, "decode"), exist_ok=True)
    for name in ("seq128", "mmapread", "par4thrash", "sched-only.trace"):
        v6 = os.path.join(tmp, name + ".v6.dat")
        trace_cmd_convert(os.path.join(fixtures, name + ".dat"), v6, ["--file-version", "6"])
        t = parse_v6(open(v6, "rb").read())
        wanted = {format_id(f) for n, fmts in t["systems"] if n in KEEP_SYSTEMS for f in fmts}
        pages = pick_pages(t, wanted)
        keep = {i for plist in pages for page in plist for i, _ in events_of_page(page)}
        keep |= {format_id(f) for n, fmts in t["systems"] if n == b"readahead" for f in fmts}
        short = name.split(".")[0]
        slice6 = os.path.join(out, "tracedat", short + "-v6.dat")
        write_v6(t, pages, keep, slice6)
        trace_cmd_convert(slice6, os.path.join(out, "tracedat", short + "-v7.dat"),
                          ["--compression", "none"])
        trace_cmd_convert(slice6, os.path.join(out, "tracedat", short + "-v7-zstd.dat"),
                          ["--compression", "zstd"])
        decode_seed(t, pages, os.path.join(out, "decode", short + ".bin"))


BT_V7 = 48


def bt_records(data):
    p, out = 0, []
    while p + BT_V7 <= len(data):
        pdu = int.from_bytes(data[p + 46:p + 48], "little")
        out.append(data[p:p + BT_V7 + pdu])
        p += BT_V7 + pdu
    return out


def bt_swap(rec):
    """A version 7 record in the other byte order (payloads of UNPLUG, SPLIT
    and REMAP are big-endian in both)."""
    h = struct.unpack("<IIQQIIIIIHH", rec[:BT_V7])
    return struct.pack(">IIQQIIIIIHH", *h) + rec[BT_V7:]


def bt_v8(rec):
    magic, seq, time, sector, nbytes, action, pid, dev, cpu, err, pdu = \
        struct.unpack("<IIQQIIIIIHH", rec[:BT_V7])
    magic = (magic & ~0xff) | 8
    return struct.pack("<IIQQIIQIIHH12x", magic, seq, time, sector, nbytes, pid, action, dev,
                       cpu, err, pdu) + rec[BT_V7:]


def blktrace_seeds(fixtures, out):
    d = os.path.join(out, "blktrace")
    os.makedirs(d, exist_ok=True)
    recs = bt_records(open(os.path.join(fixtures, "nvme-readahead.blktrace.0"), "rb").read())
    acts = lambda r: int.from_bytes(r[28:32], "little") & 0xffff
    # the first records (notify records: process names, the timestamp) and a
    # run around the first remap, split and unplug
    first = b"".join(recs[:24])
    runs = {"head.blktrace": first}
    for want, label in ((15, "remap"), (10, "unplug"), (11, "unplug-timer")):
        at = next((i for i, r in enumerate(recs) if acts(r) == want), None)
        if at is not None:
            runs[label + ".blktrace"] = b"".join(recs[max(at - 6, 0):at + 6])
    runs["swapped.blktrace"] = b"".join(bt_swap(r) for r in recs[:24])
    runs["v8.blktrace"] = b"".join(bt_v8(r) for r in recs[:24])
    runs["two-files.blktrace"] = (b"".join(recs[:12]) + b"\n--next-cpu-file--\n" +
                                  b"".join(recs[12:24]))
    for name, data in runs.items():
        open(os.path.join(d, name), "wb").write(data)
    return first


def db_seeds(out, first_records, ra_import, tmp):
    d = os.path.join(out, "db")
    os.makedirs(d, exist_ok=True)
    bt = os.path.join(tmp, "slice.blktrace.0")
    open(bt, "wb").write(first_records)
    for name, version in (("schema-current.sqlite", None), ("schema-v2.sqlite", 2)):
        db = os.path.join(tmp, name)
        subprocess.run([ra_import, "-q", "-o", db, bt], check=True)
        con = sqlite3.connect(db)
        con.execute("PRAGMA journal_mode = DELETE")
        con.execute("PRAGMA page_size = 512")
        if version:
            con.execute("PRAGMA user_version = %d" % version)
        con.execute("VACUUM")
        con.close()
        os.replace(db, os.path.join(d, name))
    other = os.path.join(d, "not-ratrace.sqlite")
    con = sqlite3.connect(other)
    con.execute("PRAGMA page_size = 512")
    con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
    con.execute("INSERT INTO t VALUES (1, 'x')")
    con.commit()
    con.close()
    open(os.path.join(d, "empty.sqlite"), "wb").close()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_corpus.py FIXTURES OUTDIR RA_IMPORT")
    fixtures, out, ra_import = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="ratrace-corpus.") as tmp:
        tracedat_seeds(fixtures, out, tmp)
        first = blktrace_seeds(fixtures, out)
        db_seeds(out, first, ra_import, tmp)


if __name__ == "__main__":
    main()
