#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format san
# The bash completion (completion/compsize.bash), driven in bash as readline
# would: COMP_WORDS split at COMP_WORDBREAKS, COMP_CWORD, COMP_LINE, then
# COMPREPLY.  Its options and values are checked against the program's own
# --help and error messages, and every --estimate item it offers against
# the parser, so a new option or value can't be forgotten in it.
. "$(dirname "$0")/../common.sh"

bc=/usr/share/bash-completion/bash_completion
ours=$(cd "$(dirname "$0")/../../.." && pwd)/completion/compsize.bash
[ -r "$bc" ] || { fail "$bc: bash-completion is not installed (make deps)"; exit 1; }

# complete LINE: the candidates, one a line, as readline would insert them
# at the end of LINE.
complete_line()
{
	bash --norc --noprofile -c '
		. "$1"; . "$2"
		# compopt needs readline to be completing; nospace is not tested
		compopt() { :; }
		line=$3
		# readline splits at COMP_WORDBREAKS; a run of break characters
		# is a word of its own, a blank ends a word
		words=() w= brk=
		for ((i = 0; i < ${#line}; i++)); do
			c=${line:i:1}
			if [[ $c == [[:blank:]] ]]; then
				[[ $w ]] && words+=("$w")
				w= brk=
			elif [[ $COMP_WORDBREAKS == *"$c"* ]]; then
				[[ $w && ! $brk ]] && { words+=("$w"); w=; }
				w+=$c brk=1
			else
				[[ $w && $brk ]] && { words+=("$w"); w=; }
				w+=$c brk=
			fi
		done
		words+=("$w")	# the word being completed, maybe empty
		COMP_WORDS=("${words[@]}")
		COMP_CWORD=$((${#words[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		spec=$(complete -p compsize) || exit 1
		[[ $spec == "complete -F _compsize compsize" ]] || { echo "spec: $spec"; exit 1; }
		_compsize compsize "${words[COMP_CWORD]}" "${words[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$bc" "$ours" "$1"
}

# expect LINE CANDIDATE...: exactly these candidates, in any order.
expect()
{
	local line=$1 got want
	shift
	CHECKS=$((CHECKS + 1))
	got=$(complete_line "$line" | sort)
	want=$(printf '%s\n' "$@" | sort)
	[ "$got" = "$want" ] ||
		fail "completing '$line': got [$(echo $got)], want [$(echo $want)]"
}

# Options: exactly those --help lists (long ones with '=' if they take a
# value).
run_ours help --help
# (the option column: lines "    -b, --bytes ..." and "        --walk ...")
help_opts=$(sed -nE 's/^ {4}(-[a-z0-9], )? *(--[a-z][a-z-]*=?).*/\1\n\2/p' "$OUT/help.out" |
	sed 's/, $//' | grep . | sort -u)
CHECKS=$((CHECKS + 1))
got=$(complete_line 'compsize -' | sort -u)
[ "$got" = "$help_opts" ] ||
	fail "options: completion [$(echo $got)] but --help [$(echo $help_opts)]"
expect 'compsize --per' --per-file
expect 'compsize --form' --format=
expect 'compsize -b --on' --one-file-system

# --format and --sort: the values the program's own error message lists.
for opt in format sort; do
	run_ours bad --$opt=bogus /
	values=$(sed -n "s/.*'bogus': use //p" "$OUT/bad.err" | tr -s ', ' '\n\n' |
		grep -vx or | sort)
	[ -n "$values" ] || fail "--$opt=bogus: no list of values in: $(cat "$OUT/bad.err")"
	expect "compsize --$opt=" $values
	expect "compsize --$opt " $values
done
expect 'compsize --format=j' json
expect 'compsize --sort=sa' saved

# --estimate items, levels and ranges, after a comma, with a prefix.
expect 'compsize -e ' zstd zstd: zlib zlib: lzo all compress= compress-force=
expect 'compsize -e zs' zstd zstd:
expect 'compsize --estimate=l' lzo
expect 'compsize --estimate=compress-force=l' lzo
expect 'compsize -e compress=' zstd zstd: zlib zlib: lzo all
expect 'compsize -e zstd:1,zl' 1,zlib 1,zlib:
expect 'compsize -e lzo,compress-force=a' all
expect 'compsize -e zlib:' 1 2 3 4 5 6 7 8 9
expect 'compsize -e zstd:1' 1 10 11 12 13 14 15
expect 'compsize -e zlib:7..' 7..8 7..9
expect 'compsize --estimate=lzo,zstd:-1' -1 -10 -11 -12 -13 -14 -15
# every item offered is one the parser takes (zlib:0 is not offered)
for pre in zstd zlib compress-force=zstd; do
	for lv in $(complete_line "compsize -e $pre:") \
		  $(complete_line "compsize -e $pre:2.."); do
		CHECKS=$((CHECKS + 1))
		run_prog item "$COMPSIZE" -e "$pre:$lv" --version
		[ "$(cat "$OUT/item.rc")" = 0 ] ||
			fail "completion offers -e $pre:$lv, which compsize rejects: $(cat "$OUT/item.err")"
	done
done

# Numbers: nothing offered.  Paths: files and directories.
expect 'compsize --depth='
expect 'compsize -j '
mkdir -p "$TESTDIR/tree/abc dir" "$TESTDIR/tree/abd"
: >"$TESTDIR/tree/abe.txt"
: >"$TESTDIR/tree/x"
expect "compsize -b $TESTDIR/tree/ab" "$TESTDIR/tree/abc dir" \
	"$TESTDIR/tree/abd" "$TESTDIR/tree/abe.txt"
expect "compsize -- $TESTDIR/tree/x" "$TESTDIR/tree/x"
: >"$TESTDIR/tree/plot.svg"
expect "compsize --plot=$TESTDIR/tree/" "$TESTDIR/tree/abc dir" \
	"$TESTDIR/tree/abd" "$TESTDIR/tree/plot.svg"
