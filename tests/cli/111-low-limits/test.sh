#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust san
# Low resource limits.  Under ulimit -n 16 every mode reads a tree deeper
# than the descriptors (the walk closes directories nearest the root while
# opens fail with EMFILE), with the report compsize 1.5 gives without the
# limit.  Under small address-space limits an estimate either reports or
# fails with one clear line and exit 3, never silently (a worker thread
# that can't get its stack is out of memory).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir deep
(cd deep && for ((i = 0; i < 40; i++)); do
	mkdir d
	text_data $((i * 500 + 100)) >d/f
	cd d
done)
text_data 300K >big
sync

# ours under a limit: a wrapper, so the oracle runs without it.
limited()
{
	printf '#!/bin/bash\nulimit %s || exit 99\nexec -a compsize %q "$@"\n' \
		"$1" "$REAL" >"$TESTDIR/limited"
	chmod +x "$TESTDIR/limited"
	echo "$TESTDIR/limited"
}
REAL=$COMPSIZE

for args in "deep" "-b deep" "--walk deep" "-x deep"; do
	# shellcheck disable=SC2086
	COMPSIZE=$(limited "-n 16") expect_ours 0 '' $args
	# shellcheck disable=SC2086
	ours_stdout_matches_oracle ${args/--walk /}
done

# --estimate: the usage part as 1.5's, every file read for the estimate.
COMPSIZE=$(limited "-n 16") expect_ours 0 '' -b -e zstd:3 -j 2 deep
run_prog oracle "$ORACLE" -b deep
CHECKS=$((CHECKS + 1))
cmp -s <(head -3 "$OUT/oracle.out") <(head -3 "$OUT/ours.out") ||
	fail "-e under ulimit -n 16: the usage differs from compsize 1.5's"
CHECKS=$((CHECKS + 1))
grep -Eq '^compress=zstd:3 .* [0-9]+ +[-0-9]' "$OUT/ours.out" ||
	fail "-e under ulimit -n 16: no estimate line"

# Address space: from too small to start at all to enough.  Not under
# AddressSanitizer, which maps terabytes of shadow memory at start: there
# the limit tests the sanitizer, not compsize (SANITIZED=1, as make
# check-san and tests/coverage.sh -s say, or libasan linked).
if [ "${SANITIZED:-0}" = 1 ] || ldd "$REAL" 2>/dev/null | grep 'libasan' >/dev/null; then
	skip "ulimit -v: $REAL is built with AddressSanitizer"
fi
for kb in 4000 8000 12000 16000 20000 24000 28000 32000 40000 60000; do
	run_prog ours "$(limited "-v $kb")" -e zstd:3 -j2 big deep
	rc=$(cat "$OUT/ours.rc")
	CHECKS=$((CHECKS + 1))
	case $rc in
	0)
		if [ -s "$OUT/ours.err" ]; then
			fail "ulimit -v $kb: exit 0 with a message: $(cat "$OUT/ours.err")"
		fi
		;;
	3)
		if [ "$(wc -l <"$OUT/ours.err")" != 1 ] ||
		   ! grep -Eq '^compsize: (out of memory|--estimate: .+)$' "$OUT/ours.err"; then
			fail "ulimit -v $kb: exit 3 without one clear line: $(cat "$OUT/ours.err")"
		fi
		if [ -s "$OUT/ours.out" ]; then
			fail "ulimit -v $kb: exit 3 with a report on stdout"
		fi
		;;
	127)
		# The loader itself could not map the program: nothing of ours ran.
		;;
	*)
		fail "ulimit -v $kb: exit $rc: $(cat "$OUT/ours.err")"
		;;
	esac
	if [ "${VERBOSE:-0}" = 1 ]; then
		echo "ulimit -v $kb: exit $rc $(cat "$OUT/ours.err")" >&2
	fi
done
