#!/bin/sh
# tests/check-man.sh: the manual pages in $BUILD/man (make man, from the
# help texts, tools/gen/man.sh).  Every subcommand (tools/cli/cmd-*.c)
# has its page and synctrace(1) names it; every page renders with
# `man -l` (and groff -ww gives no warning); every option its help text
# shows is in its page, so page and --help agree.  Then `make install`
# into a scratch DESTDIR puts the pages under share/man/man1, and `make
# uninstall` leaves no file there.  Prints each problem and exits 1, or
# prints one summary line.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
cli=$BUILD/synctrace
man=$BUILD/man
bad=0 n=0

problem()
{
	echo "check-man: $*" >&2
	bad=1
}

command -v groff >/dev/null 2>&1 ||
	{ echo "check-man: no groff (Debian: groff-base)" >&2; exit 1; }

# A page as plain text, 200 columns wide so options are not broken.
render()
{
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=200 MAN_KEEP_FORMATTING= man -l "$1" 2>/dev/null
	else
		groff -man -Tutf8 -rLL=200n "$1" 2>/dev/null | col -b
	fi
}

check_page()
{
	page=$1
	help=$2
	[ -f "$page" ] || { problem "no page '$page'"; return; }
	n=$((n + 1))
	warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	[ -z "$warn" ] || problem "'$page': groff says: $warn"
	render "$page" > "$man/check.txt" ||
		{ problem "'$page' does not render"; return; }
	grep -q '^NAME' "$man/check.txt" && grep -q '^SYNOPSIS' "$man/check.txt" ||
		problem "'$page' has no NAME or SYNOPSIS"
	# Every option of the help text ("-o", "--output") is in the page.
	for opt in $(printf '%s\n' "$help" | tr ',[]=' '    ' |
		     tr ' ' '\n' | grep -E '^--?[a-zA-Z][a-zA-Z0-9-]*$' |
		     sort -u); do
		grep -q -e "$opt" "$man/check.txt" ||
			problem "'$page' lacks '$opt', which its help shows"
	done
}

check_page "$man/synctrace.1" "$("$cli" --help)"
for f in tools/cli/cmd-*.c; do
	name=${f#tools/cli/cmd-}
	name=${name%.c}
	help=$("$cli" help "$name") ||
		{ problem "'synctrace help $name' fails"; continue; }
	check_page "$man/synctrace-$name.1" "$help"
	grep -q "synctrace\\\\-$name" "$man/synctrace.1" ||
		problem "synctrace(1) does not name synctrace-$name(1)"
done
rm -f "$man/check.txt"

# make install puts the pages in; make uninstall takes everything out.
dest=$top/$BUILD/check-install
rm -rf "$dest"
if ! $MAKE --no-print-directory -s install DESTDIR="$dest" PREFIX=/usr \
	BUILD="$BUILD" SAN="$SAN" > "$dest.log" 2>&1; then
	cat "$dest.log" >&2
	problem "make install failed"
else
	for f in "$man"/*.1; do
		[ -f "$dest/usr/share/man/man1/${f##*/}" ] ||
			problem "make install did not install ${f##*/}"
	done
	$MAKE --no-print-directory -s uninstall DESTDIR="$dest" PREFIX=/usr \
		BUILD="$BUILD" SAN="$SAN" > "$dest.log" 2>&1 ||
		{ cat "$dest.log" >&2; problem "make uninstall failed"; }
	left=$(find "$dest" ! -type d)
	[ -z "$left" ] || problem "make uninstall left: $left"
fi
rm -rf "$dest" "$dest.log"

[ $bad = 0 ] || exit 1
echo "check-man: $n pages render and agree with --help; install and" \
	"uninstall leave nothing behind"
