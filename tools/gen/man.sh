#!/bin/sh
# tools/gen/man.sh: write the manual pages synctrace(1) and
# synctrace-<command>(1), one per subcommand, from the very texts that
# `synctrace --help` and `synctrace help <command>` print, so the pages
# and the help can never disagree.  The commands are the ones
# `synctrace --help` lists, so a new subcommand gets its page without
# anything here changing.
#
#   sh tools/gen/man.sh build/synctrace build/man
#
# A help text is read as: the synopsis ("usage:" and "or:" lines;
# "eg:" lines become EXAMPLES), then blocks separated by blank lines:
# a block that starts with an indented "-" is a list of options (each
# "    -x, --long ARG   text" line starts one, deeper-indented lines
# continue it), any other block a paragraph.  Paragraphs before the
# first option list make DESCRIPTION, those after it NOTES.  Output is
# deterministic (no date): review a change by diffing build/man/.
set -e
cli=$1
out=$2
[ -x "$cli" ] && [ -n "$out" ] || {
	echo "usage: sh tools/gen/man.sh SYNCTRACE OUTDIR" >&2
	exit 2
}
version=$("$cli" --version | sed 's/^synctrace version //')
mkdir -p "$out"
rm -f "$out"/synctrace.1 "$out"/synctrace-*.1

# to_roff NAME TAIL SUMMARY < help text > page; TAIL is roff put at the
# end as it is (through the environment: awk -v would read backslashes).
to_roff()
{
	MAN_NAME=$1 MAN_TAIL=$2 MAN_SUMMARY=$3 MAN_VERSION=$version awk '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		return s
	}
	# A text line: escaped, and never read as a request.
	function line(s) {
		s = esc(s)
		if (s ~ /^[.\047]/)
			s = "\\&" s
		return s
	}
	function flush_item() {
		if (term == "")
			return
		body = body ".TP\n.B " line(term) "\n" line(desc) "\n"
		term = ""
		desc = ""
	}
	function flush_para() {
		if (para == "")
			return
		if (seen_opts)
			notes = notes ".PP\n" para
		else
			descr = descr ".PP\n" para
		para = ""
	}
	BEGIN {
		name = ENVIRON["MAN_NAME"]
		tail = ENVIRON["MAN_TAIL"]
		summary = ENVIRON["MAN_SUMMARY"]
		version = ENVIRON["MAN_VERSION"]
		state = "synopsis"
	}
	state == "synopsis" {
		if ($0 == "") { state = "blocks"; next }
		if (sub(/^usage: /, "") || sub(/^ *or: /, ""))
			synopsis = synopsis line($0) "\n"
		else if (sub(/^ *eg: /, ""))
			examples = examples ".PP\n.nf\n" line($0) "\n.fi\n"
		else	# a synopsis line continued
			synopsis = synopsis line($0) "\n"
		next
	}
	$0 == "" { flush_item(); flush_para(); inopts = 0; next }
	/^    -/ || (inopts && /^     /) {
		if (/^    -/) {
			flush_item()
			flush_para()
			inopts = 1
			seen_opts = 1
			s = substr($0, 5)
			i = index(s, "  ")
			if (i) {
				term = substr(s, 1, i - 1)
				desc = substr(s, i)
				sub(/^ +/, "", desc)
			} else {
				term = s
				desc = ""
			}
		} else {
			s = $0
			sub(/^ +/, "", s)
			desc = desc (desc == "" ? "" : " ") s
		}
		next
	}
	{
		if (inopts) { flush_item(); inopts = 0 }
		s = $0
		sub(/^ +/, "", s)
		para = para line(s) "\n"
	}
	END {
		flush_item()
		flush_para()
		up = toupper(name)
		printf ".\\\" Generated from the help text of %s by tools/gen/man.sh.", name
		printf " Do not edit.\n"
		printf ".TH %s 1 \"\" \"synctrace %s\" \"synctrace manual\"\n", \
			esc(up), esc(version)
		printf ".nh\n.ad l\n"
		printf ".SH NAME\n%s \\- %s\n", esc(name), line(summary)
		printf ".SH SYNOPSIS\n.nf\n%s.fi\n", synopsis
		if (descr != "")
			printf ".SH DESCRIPTION\n%s", descr
		if (body != "")
			printf ".SH OPTIONS\n%s", body
		if (notes != "")
			printf ".SH NOTES\n%s", notes
		if (examples != "")
			printf ".SH EXAMPLES\n%s", examples
		printf "%s", tail
	}'
}

# The commands and their one-line summaries, from `synctrace --help`:
# "   name       summary" lines, continued on deeper-indented lines.
"$cli" --help | awk '
	/^commands:/ { on = 1; next }
	on && /^$/ { exit }
	on && /^   [^ ]/ {
		if (name != "")
			print name "\t" summary
		name = $1
		summary = substr($0, index($0, $1) + length($1))
		sub(/^ +/, "", summary)
		next
	}
	on && /^    / { s = $0; sub(/^ +/, "", s); summary = summary " " s }
	END { if (name != "") print name "\t" summary }
' > "$out/commands.tmp"

see_also=$(awk -F '	' '{ printf "%s\\fBsynctrace\\-%s\\fR(1)", \
	(NR > 1 ? ", " : ""), $1 }' "$out/commands.tmp")
see_also=".SH SEE ALSO
$see_also;
the reference pages in the docs/ directory of synctrace's source tree."

# synctrace(1): the main help, its command list as COMMANDS.
{
	"$cli" --help | awk '/^commands:/ { exit } { print }'
} | to_roff synctrace "$(printf '%s\n%s\n' ".SH COMMANDS" \
	"$(awk -F '	' '{ gsub(/-/, "\\-", $2);
		printf ".TP\n.BR synctrace\\-%s (1)\n%s\n", $1, $2 }' \
		"$out/commands.tmp")")
$see_also
" "record every MPI call of a job, read the traces back, build cost tables and predict run times" \
	> "$out/synctrace.1"

while IFS='	' read -r cmd summary; do
	"$cli" help "$cmd" | to_roff "synctrace-$cmd" \
		".SH SEE ALSO
\\fBsynctrace\\fR(1)
" "$summary" > "$out/synctrace-$cmd.1"
done < "$out/commands.tmp"
rm -f "$out/commands.tmp"
