#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors san
# Deliberate improvements in option handling: --help on stdout (exit 0),
# --version, usage errors exit 2.  compsize 1.5 prints help on stderr, has no
# --version, and exits 1 on usage errors.
. "$(dirname "$0")/../common.sh"

version=$(cat "$(dirname "$0")/../../../VERSION")

for opt in --help -h; do
	expect_ours 0 '' $opt
	if ! grep -q '^Usage: compsize' "$OUT/ours.out"; then
		fail "compsize $opt: no 'Usage: compsize' line on stdout"
	fi
done

expect_ours 0 '' --version
ours_stdout_is "compsize $version"

# No path at all.
expect_ours 2 '^Usage: compsize' 
ours_stdout_is ""
expect_ours 2 '^Usage: compsize' -b -x
ours_stdout_is ""
expect_ours 2 '^Usage: compsize' --
ours_stdout_is ""

# Unknown options: getopt's message, nothing on stdout.
expect_ours 2 "^compsize: invalid option -- 'z'$" -z /
ours_stdout_is ""
expect_ours 2 "^compsize: unrecognized option '--bogus'$" --bogus /
ours_stdout_is ""
expect_ours 2 "^compsize: option '--bytes' doesn't allow an argument$" --bytes=1 /
ours_stdout_is ""
