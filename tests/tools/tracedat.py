#!/usr/bin/env python3
# Reading and writing trace-cmd trace.dat files of version 6 (uncompressed,
# little-endian, 8-byte longs, as `trace-cmd convert --file-version 6` writes
# them on x86-64), and the events of ring-buffer sub-buffers: what the tests
# and tests/fuzz/make_corpus.py need to find, cut and damage real traces.

import struct

PAGE_HDR = 16          # u64 timestamp, u64 commit (long size 8)


class Reader:
    def __init__(self, data, pos=0):
        self.d, self.p = data, pos

    def take(self, n):
        b = self.d[self.p:self.p + n]
        if len(b) != n:
            raise ValueError("short read at %d" % self.p)
        self.p += n
        return b

    def u(self, n):
        return int.from_bytes(self.take(n), "little")

    def cstr(self):
        e = self.d.index(b"\0", self.p)
        s = self.d[self.p:e]
        self.p = e + 1
        return s


def parse_v6(data):
    r = Reader(data, 10)
    t = {"version": r.cstr()}
    t["endian"], t["long"], t["page"] = r.u(1), r.u(1), r.u(4)
    assert t["version"] == b"6" and t["endian"] == 0 and t["long"] == 8
    assert r.take(12) == b"header_page\0"
    t["header_page"] = r.take(r.u(8))
    assert r.take(13) == b"header_event\0"
    t["header_event"] = r.take(r.u(8))
    t["ftrace"] = [r.take(r.u(8)) for _ in range(r.u(4))]
    t["systems"] = []
    for _ in range(r.u(4)):
        name = r.cstr()
        t["systems"].append((name, [r.take(r.u(8)) for _ in range(r.u(4))]))
    t["kallsyms"] = r.take(r.u(4))
    t["printk"] = r.take(r.u(4))
    t["cmdlines"] = r.take(r.u(8))
    t["cpus"] = r.u(4)
    assert r.take(10) == b"options  \0"
    t["options"], t["option_at"] = [], []
    while True:
        oid = r.u(2)
        if oid == 0:
            break
        size = r.u(4)
        t["option_at"].append((oid, r.p, size))    # where its data is
        t["options"].append((oid, r.take(size)))
    assert r.take(10) == b"flyrecord\0"
    cpus = t["cpus"]
    for oid, body in t["options"]:
        if oid == 8:
            cpus = int.from_bytes(body[:4], "little")
    t["cpu_data"], t["cpu_at"] = [], []
    for _ in range(cpus):
        entry = r.p
        off, size = r.u(8), r.u(8)
        t["cpu_at"].append((entry, off, size))     # the offset/size pair, the data
        t["cpu_data"].append(data[off:off + size])
    t["clock"] = r.take(r.u(8)) if any(o == 4 for o, _ in t["options"]) else None
    return t


def events_of_page(page):
    """(common_type, data) of each data event of a ring-buffer page."""
    commit = int.from_bytes(page[8:16], "little") & ((1 << 27) - 1)
    p, end, out = PAGE_HDR, min(PAGE_HDR + commit, len(page)), []
    while p + 4 <= end:
        h = int.from_bytes(page[p:p + 4], "little")
        tl = h & 0x1f
        p += 4
        if tl == 29:           # padding
            p += int.from_bytes(page[p:p + 4], "little")
            continue
        if tl in (30, 31):     # time extend, absolute time stamp
            p += 4
            continue
        if tl == 0:
            n = int.from_bytes(page[p:p + 4], "little") - 4
            n = (n + 3) & ~3
            p += 4
        else:
            n = tl * 4
        rec = page[p:p + n]
        if len(rec) >= 2:
            out.append((int.from_bytes(rec[:2], "little"), rec))
        p += n
    return out


def format_id(fmt):
    for line in fmt.split(b"\n"):
        if line.startswith(b"ID: "):
            return int(line[4:])
    return -1


# A version 6 file of the header, formats (those of @keep_ids), options
# (and @extra_options, (id, bytes) pairs) and trace clock of @t, a few command
# lines, no kallsyms or printk formats, and the sub-buffers @pages (a list
# per CPU).
def write_v6(t, pages, keep_ids, path, extra_options=()):
    le = lambda v, n: v.to_bytes(n, "little")
    out = bytearray(b"\x17\x08Dtracing6\0" + le(0, 1) + le(8, 1) + le(t["page"], 4))
    out += b"header_page\0" + le(len(t["header_page"]), 8) + t["header_page"]
    out += b"header_event\0" + le(len(t["header_event"]), 8) + t["header_event"]
    out += le(0, 4)                                     # no ftrace formats
    systems = [(n, [f for f in fmts if format_id(f) in keep_ids]) for n, fmts in t["systems"]]
    systems = [(n, f) for n, f in systems if f]
    out += le(len(systems), 4)
    for name, fmts in systems:
        out += name + b"\0" + le(len(fmts), 4)
        for f in fmts:
            out += le(len(f), 8) + f
    out += le(0, 4) + le(0, 4)                          # kallsyms, printk
    cmd = b"\n".join(t["cmdlines"].split(b"\n")[:12]) + b"\n"
    out += le(len(cmd), 8) + cmd
    out += le(len(pages), 4) + b"options  \0"
    for oid, body in list(t["options"]) + list(extra_options):
        if oid == 8:
            body = le(len(pages), 4)
        out += le(oid, 2) + le(len(body), 4) + body
    out += le(0, 2) + b"flyrecord\0"
    pairs_at = len(out)
    out += bytes(16 * len(pages))
    if t["clock"] is not None:
        out += le(len(t["clock"]), 8) + t["clock"]
    for cpu, plist in enumerate(pages):
        out += bytes((-len(out)) % t["page"])
        start = len(out)
        for page in plist:
            out += page
        struct.pack_into("<QQ", out, pairs_at + 16 * cpu, start, len(out) - start)
    open(path, "wb").write(out)


def sections_v7(data):
    """(offset, id, flags, size) of each section of a little-endian version 7 file."""
    p = 18
    p = data.index(b"\0", p) + 1          # compression name
    p = data.index(b"\0", p) + 1          # compression version
    p += 8                                # first options section
    out = []
    while p + 16 <= len(data):
        sid, flags, _desc, size = struct.unpack_from("<HHIQ", data, p)
        out.append((p, sid, flags, size))
        p += 16 + size
    return out


def options_v7(data):
    """(id, data offset, size) of the options of every uncompressed options section."""
    out = []
    for off, sid, flags, size in sections_v7(data):
        if sid != 0 or flags:
            continue
        p, end = off + 16, off + 16 + size
        while p + 6 <= end:
            oid, osize = struct.unpack_from("<HI", data, p)
            out.append((oid, p + 6, osize))
            p += 6 + osize
            if oid == 0:
                break
    return out


def buffer_v7(data, name=b""):
    """Of the BUFFER option of buffer @name: where its page size is, and the
    (entry, offset, size) of each CPU's data."""
    for oid, p, _size in options_v7(data):
        if oid != 3:
            continue
        q = p + 8
        end = data.index(b"\0", q)
        if data[q:end] != name:
            continue
        q = data.index(b"\0", end + 1) + 1  # the clock
        page_at = q
        ncpu = struct.unpack_from("<I", data, q + 4)[0]
        q += 8
        cpus = []
        for _ in range(ncpu):
            _cpu, off, size = struct.unpack_from("<IQQ", data, q)
            cpus.append((q, off, size))
            q += 20
        return page_at, cpus
    return None, []
