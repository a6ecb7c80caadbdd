#!/bin/sh
# tools/scripts/install-deps.sh: install the Debian packages synctrace and
# its tests need when any is missing, as root or through sudo; otherwise
# print the command.  With them, no test of `make test` is skipped:
#   build:  make gcc pkg-config mpich libmpich-dev libunwind-dev zlib1g-dev
#           gfortran (the Fortran test apps), libotf2-trace-dev (export),
#           libjansson-dev (JSON), groff-base (manual pages)
#   tests:  libcriterion-dev (unit tests), python3 (JSON checks, the
#           Python reader), otf2-tools python3-otf2 (t-export reads the
#           OTF2 back), chromium (t-table-html, t-view render HTML pages),
#           clang libclang-rt-14-dev (the libFuzzer targets),
#           openmpi-bin libopenmpi-dev python3-mpi4py (the Open MPI build
#           and its tests), slurm-wlm munge (t-slurm's own Slurm),
#           valgrind (t-openmpi counts the repeat path's instructions)
# Packages named as arguments are wanted too (make validate-net:
# libsimgrid-dev, whose smpicc and smpirun give SMPI's side).
pkgs="make gcc pkg-config mpich libmpich-dev libunwind-dev zlib1g-dev"
pkgs="$pkgs gfortran libotf2-trace-dev libjansson-dev groff-base"
pkgs="$pkgs libcriterion-dev python3 otf2-tools python3-otf2 chromium"
pkgs="$pkgs clang libclang-rt-14-dev openmpi-bin libopenmpi-dev"
pkgs="$pkgs python3-mpi4py slurm-wlm munge valgrind $*"
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
