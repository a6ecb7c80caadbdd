#!/bin/sh
# tools/gen/version.sh: print synctrace's version, the one place it comes
# from.  The release is the VERSION file at the top of the tree; in a git
# checkout, git describe adds the commit: "0.2" at a tag v0.2, else
# "0.1-g95e8efc" (VERSION, then the commit), and "-dirty" when files
# differ from it.  A tree without .git (a tarball) is just VERSION.
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
v=$(cat "$top/VERSION") || exit 1
if [ -e "$top/.git" ] && command -v git >/dev/null 2>&1; then
	if d=$(git -C "$top" describe --tags --match 'v[0-9]*' --dirty \
		2>/dev/null); then
		v=${d#v}
	elif h=$(git -C "$top" rev-parse --short HEAD 2>/dev/null); then
		v=$v-g$h
		git -C "$top" diff --quiet HEAD -- 2>/dev/null || v=$v-dirty
	fi
fi
echo "$v"
