#!/bin/sh
# Install the Debian packages ratrace needs to build, test and run its demo.
# Idempotent: does nothing when every package is already installed.
set -eu

PKGS="build-essential pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev libbpf-dev libpq-dev
libsqlite3-dev libzstd-dev zlib1g-dev sqlite3 trace-cmd blktrace fio e2fsprogs util-linux
procps xz-utils"
[ $# -gt 0 ] && PKGS="$PKGS $*"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	"install ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "ratrace: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "ratrace: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
