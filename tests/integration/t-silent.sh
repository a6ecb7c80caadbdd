#!/bin/sh
# tests/integration/t-silent.sh: tracing changes nothing the user sees.
# Each app is run without synctrace, with the library preloaded, and
# through `synctrace run`; stdout (line-sorted, as ranks interleave),
# stderr and the exit status must be identical every time (but for the
# "synctrace: " lines of `synctrace run` itself: the library says
# nothing).  Covers a
# normal run, an exit status of 3 after MPI_Finalize, and an exit
# without MPI_Finalize.
. "$(dirname "$0")/lib.sh"

for app in p2p crash nofinal; do
	need_app $app
done

i=0
# (Hydra kills the job when a rank exits without MPI_Finalize, cutting
# other ranks' output at random unless told not to clean up; even then
# it sometimes misreports such a rank's exit, see hydra_retry.)
for cmd in "p2p" "crash exit3 300" "-disable-auto-cleanup nofinal 40"; do
	i=$((i + 1))
	set -- $cmd
	opt=
	case $1 in -*) opt=$1; shift ;; esac
	app=$ST_APPS/$1
	shift
	hydra_retry "$ST_TMP/$i-plain" - \
		untraced "$ST_TMP/$i-plain" $MPIEXEC $opt -n 2 "$app" "$@"
	hydra_retry "$ST_TMP/$i-pre" "$ST_TMP/$i-trace" \
		traced "$ST_TMP/$i-trace" "$ST_TMP/$i-pre" $MPIEXEC $opt -n 2 \
		"$app" "$@"
	same_output "$ST_TMP/$i-plain" "$ST_TMP/$i-pre" sort
	[ -f "$ST_TMP/$i-trace/synctrace.run" ] ||
		fail "'$cmd' with LD_PRELOAD left no trace in '$ST_TMP/$i-trace'"
	hydra_retry "$ST_TMP/$i-cli" "$ST_TMP/$i-cli-trace" \
		cli_run "$ST_TMP/$i-cli-trace" "$ST_TMP/$i-cli" -- \
		$MPIEXEC $opt -n 2 "$app" "$@"
	same_output "$ST_TMP/$i-plain" "$ST_TMP/$i-cli" sort
	[ -f "$ST_TMP/$i-cli-trace/synctrace.run" ] ||
		fail "'synctrace run -- $cmd' left no trace"
	note "'$cmd': same output and exit status $(cat "$ST_TMP/$i-plain.rc")"
	[ ! -s "$ST_TMP/$i-cli.cli" ] ||
		note "(synctrace run said: $(cat "$ST_TMP/$i-cli.cli"))"
done
# The runs really did something worth comparing.
grep -q 'all ranks ok' "$ST_TMP/1-plain.out" || fail "p2p did not run"
expect_rc "$ST_TMP/2-plain" 3
