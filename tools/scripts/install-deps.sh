#!/bin/sh
# tools/scripts/install-deps.sh: install the Debian packages synctrace needs when
# any is missing, as root or through sudo; otherwise print the command.
pkgs="mpich libmpich-dev libunwind-dev zlib1g-dev libcriterion-dev gfortran pkg-config
libotf2-trace-dev otf2-tools python3-otf2 chromium clang libclang-rt-14-dev groff-base
libjansson-dev"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=sudo
else
	echo "synctrace: missing Debian packages:$missing" >&2
	echo "synctrace: install them as root with: apt-get update && $cmd" >&2
	exit 1
fi
echo "synctrace: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2 || exit 1
$sudo apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
