#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format
# Every option --help lists is in the man page (as \-\-name) and in the
# README (as --name); the man page renders without warnings and names no
# file of the source tree (docs/...: not installed; the build writes the
# installed path, \*(Dd, into it).
. "$(dirname "$0")/../common.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)
man=$top/man/compsize.8
readme=$top/README.md

run_ours help --help
opts=$(sed -nE 's/^ {4}(-[a-z], )? *--([a-z][a-z-]*).*/\2/p' "$OUT/help.out")
CHECKS=$((CHECKS + 1))
[ "$(echo "$opts" | wc -w)" -ge 10 ] || fail "found only [$opts] in --help"
for o in $opts; do
	CHECKS=$((CHECKS + 1))
	grep -qF -- "\\-\\-${o//-/\\-}" "$man" || fail "--$o is not in man/compsize.8"
	grep -qF -- "--$o" "$readme" || fail "--$o is not in README.md"
done

CHECKS=$((CHECKS + 1))
MANWIDTH=100 man --warnings -l "$man" >"$OUT/man.txt" 2>"$OUT/man.err" ||
	fail "man -l man/compsize.8 failed"
[ -s "$OUT/man.err" ] && fail "man/compsize.8 warnings: $(cat "$OUT/man.err")"
CHECKS=$((CHECKS + 1))
if grep -nE '(^|[^/a-z])docs/' "$man"; then
	fail "man/compsize.8 names docs/ files, which are not installed: use \\*(Dd/NAME"
fi
