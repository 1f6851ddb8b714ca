#!/bin/bash
# N files of BYTES random bytes (one content for all) under DIR, 1000 to a
# subdirectory (DIR/0/0, DIR/0/1 ... DIR/1/1000 ...): a tree of many small
# files for bench/many_files.sh and the tests.
#
#   bench/make_files.sh DIR N BYTES
set -eu
[ $# -eq 3 ] || { echo "usage: $0 DIR N BYTES" >&2; exit 2; }
python3 - "$1" "$2" "$3" <<'PY'
import os, sys
top, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seed = os.urandom(size)
for i in range(n):
    d = os.path.join(top, str(i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    with open(os.path.join(d, str(i)), 'wb') as f:
        f.write(seed)
PY
