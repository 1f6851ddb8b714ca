#!/bin/sh
# Fetch the Debian kernels that the guest tests boot (ra-record --kernel) into
# the kernel cache, so that the tests find them there. Idempotent: a kernel in
# the cache is not fetched again (the package lists are read again after a
# day). Needs root and the network the first time.
#
#   scripts/kernels.sh BUILD_DIR [SERIES...]     (default 6.1 6.12.94 6.18 7.3)
set -u
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 6.1 6.12.94 6.18 7.3
if [ "$(id -u)" -ne 0 ]; then
	echo "ratrace: fetching the guest tests' kernels needs root; not fetched" >&2
	exit 0
fi
for k in "$@"; do
	"$build/ra-vm" fetch "$k" >/dev/null ||
		echo "ratrace: cannot fetch kernel $k: the guest tests will fail" >&2
done
exit 0
