#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Line coverage (gcov) of the test suite, per test: which lines of the
# program, its estimator and the unit tests' library each test reaches.
# It chooses the CI's sanitizer subset (group san of tests/run.sh): the
# units and the fuzzers' corpora, then the fewest CLI tests, by lines
# gained per second, that together reach every line the whole of make
# check reaches.  See tests/README.md.
#
# Usage (as root): tests/coverage.sh [-o DIR] [-s] [-r] [RUN.SH ARGUMENTS...]
#   -o DIR  work directory (default /tmp/compsize-coverage): DIR/src is a
#           copy of this tree built with --coverage, DIR/lines/NAME the
#           lines test NAME reaches ("file:line" each)
#   -s      run the tests of group san with SANITIZED=1 too, as the
#           CI's sanitizer run does, into DIR/lines-san/
#   -r      report again from DIR's lines, building and running nothing
#   RUN.SH ARGUMENTS  the tests to measure (default: -g auto, make check)
# Prints each test's lines and the union, then the subset and what it
# reaches; exit 1 if the tests in group san reach fewer lines than the
# tests measured.

set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
work=/tmp/compsize-coverage
san=0
again=0
while getopts o:sr opt; do
	case $opt in
	o) work=$OPTARG ;;
	s) san=1 ;;
	r) again=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- -g auto

die()
{
	echo "tests/coverage.sh: $*" >&2
	exit 2
}

# A copy of the tree (what git tracks and what is new but not ignored),
# built with gcov's counters.  Readable and writable by all: the tests
# run compsize as nobody too, and its counters go beside its objects.
src=$work/src
build_copy()
{
	rm -rf "$work"
	mkdir -p "$src" "$work/lines" "$work/lines-san" ||
		die "mkdir $work failed"
	(cd "$top" && git ls-files -co --exclude-standard -z |
		tar --null -T - -cf - | tar -xf - -C "$src") ||
		die "copying the tree failed"
	make -C "$src" -j"$(nproc)" -s CFLAGS='-O1 -g --coverage' \
		LDFLAGS=--coverage all tests/unit/run-unit fuzz-replay \
		>"$work/build.log" 2>&1 ||
		{ tail "$work/build.log" >&2; die "build failed"; }
	chmod -R a+rwX "$work"
}
[ $again = 1 ] || build_copy

# lines NAME: the lines reached since the counters were last cleared,
# into DIR/lines/NAME, then the counters cleared.
lines()
{
	local out=$1
	(cd "$src" && find . -name '*.gcda' -printf '%h\n' | sort -u |
		while read -r d; do
			gcov --stdout --json-format -o "$d" "$d"/*.gcda 2>/dev/null
		done) |
		python3 -c '
import json, sys
seen = set()
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("{"):
        continue
    for f in json.loads(line)["files"]:
        name = f["file"]
        if name.startswith("/") or name.startswith("tests/"):
            continue    # system headers, the tests themselves
        for l in f["lines"]:
            if l["count"] > 0:
                seen.add("%s:%d" % (name, l["line_number"]))
print("\n".join(sorted(seen)))' >"$out"
	find "$src" -name '*.gcda' -delete
}

# measure DIR NAME...: each test alone, its lines into DIR/NAME.
measure()
{
	local dir=$1 n secs t0
	shift
	for n in "$@"; do
		t0=$(date +%s)
		case $n in
		fuzz/*)
			"$src/tests/fuzz/${n#fuzz/}-replay" \
				"$src/tests/fuzz/corpus/${n#fuzz/}" >/dev/null 2>&1
			;;
		*)
			COMPSIZE=$src/compsize LOGDIR=$work/log "$src/tests/run.sh" \
				-g auto -g san -g stats "$n" | tail -n 1
			;;
		esac
		secs=$(($(date +%s) - t0))
		lines "$dir/${n//\//-}"
		printf '%-34s %6d lines %5ds\n' "$n" \
			"$(wc -l <"$dir/${n//\//-}")" "$secs"
		echo "$secs" >"$dir/${n//\//-}.secs"
	done
}

mapfile -t tests < <("$src/tests/run.sh" -l "$@" | awk '{ print $1 }')
[ ${#tests[@]} -gt 0 ] || die "no test chosen"
mapfile -t santests < <("$src/tests/run.sh" -l -g san -x fuzz | awk '{ print $1 }')
if [ $again = 0 ]; then
	find "$src" -name '*.gcda' -delete
	measure "$work/lines" "${tests[@]}"
	[ $san = 0 ] || SANITIZED=1 measure "$work/lines-san" "${santests[@]}"
fi

# The union, the subset, and the group san against the union.
python3 - "$work" "${#tests[@]}" "${tests[@]}" "${santests[@]}" <<'EOF'
import os, sys
work, k = sys.argv[1], int(sys.argv[2])
tests, santests = sys.argv[3:3 + k], sys.argv[3 + k:]
def load(d, n):
    p = os.path.join(work, d, n.replace("/", "-"))
    if not os.path.exists(p):
        return None, 0
    return set(open(p).read().split()), int(open(p + ".secs").read())
per = {n: load("lines", n) for n in tests}
union = set().union(*(l for l, _ in per.values()))
fixed = [n for n in tests if n == "unit" or n.startswith("fuzz/")]
base = set().union(*(per[n][0] for n in fixed))
print("the tests measured: %d lines; the units and the fuzzers' corpora: %d"
      % (len(union), len(base)))
# greedy: the most new lines a second
have, chosen = set(base), []
while have != union:
    n = max((n for n in tests if n not in chosen and n not in fixed),
            key=lambda n: len(per[n][0] - have) / (per[n][1] + 1))
    gain = per[n][0] - have
    chosen.append(n)
    have |= gain
    print("  + %-32s %5d new lines, %4ds" % (n, len(gain), per[n][1]))
print("subset: the units, the fuzzers and %d tests (%d s): %s"
      % (len(chosen), sum(per[n][1] for n in chosen), " ".join(chosen)))
# Group san must reach every line.  Run as the CI runs it (-s,
# SANITIZED=1), a test may take another way where the sanitizers can't go
# (111: no ulimit -v under ASan's shadow memory): lines that only tests
# of the group reach, measured plain, are named, not counted missing.
bad = 0
for d, what in (("lines", "as measured"), ("lines-san", "SANITIZED=1")):
    got = set(base)
    for n in santests:
        l, _ = load(d, n)
        if l is None:
            break
        got |= l
    else:
        missing = sorted(union - got)
        by = {}
        for line in missing:
            who = tuple(n for n in tests if line in per[n][0])
            by.setdefault(who, []).append(line)
        print("group san (%s): %d lines of %d" % (what, len(got & union),
              len(union)))
        for who, lines in by.items():
            lost = d == "lines-san" and all(n in santests for n in who)
            bad |= not lost
            print("  %s %d lines that only %s reach%s: %s" % (
                "not run:" if lost else "MISSING:", len(lines),
                " ".join(who), " (taking another way with SANITIZED=1)"
                if lost else "", " ".join(lines[:12]) +
                (" ..." if len(lines) > 12 else "")))
sys.exit(bad)
EOF
