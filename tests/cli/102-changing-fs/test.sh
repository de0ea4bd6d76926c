#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow robust san
# The filesystem changes while compsize reads it: a writer creates, grows,
# truncates, punches, reflinks, renames and deletes files and directories
# (some 40 levels down, where the walk has closed and must reopen parent
# directories) while compsize scans the tree over and over, and estimates
# it, whole and sampled, in JSON.  No crash, no
# hang, exit code 0 or 1 only, and any report must be a well-formed table of
# non-negative numbers; stderr only "compsize: PATH: cause" lines.
. "$(dirname "$0")/../common.sh"

SECONDS_TO_RUN=${CHANGE_SECONDS:-12}

setup_fs compress-force=zstd:3
mkdir -p tree/flat
deep=tree/deep
mkdir -p "$deep"
for ((i = 0; i < 40; i++)); do deep+=/d; done
mkdir -p "$deep"
text_data 64K >"$TESTDIR/text"
for i in $(seq 50); do cp "$TESTDIR/text" "tree/flat/f$i"; done
sync
argsets=("tree" "-b tree" "-x tree/flat tree/deep")
# The path walk too, where the default is to read metadata.
if "$COMPSIZE" --walk tree/flat/f1 >/dev/null 2>&1; then
	argsets+=("--walk tree" "--walk -b tree/deep tree/flat")
fi
# Estimates, samples (a pre-pass, then a walk that reads what it drew)
# and exclusive space, in JSON: it parses, and every number in it is >= 0
# (no --rewrite: its change has a sign).
argsets+=("-e zstd:1,compress-force=lzo --format=json tree"
	  "-e zstd:1 --sample=30% --depth=1 --format=json tree"
	  "-e zstd:3 --sample=20% --exclusive --format=json tree"
	  "--walk -e zstd:1,compress-force=lzo --format=json tree"
	  "--walk -e zstd:1 --sample=30% --depth=1 --format=json tree"
	  "--walk -e zstd:3 --sample=20% --exclusive --format=json tree")

# The writer: a bounded loop, killed by the EXIT trap if the test aborts.
writer()
{
	local end=$((SECONDS + SECONDS_TO_RUN)) n=0 f d
	# Any step may lose a race with another: that's the point.
	set +e
	trap - ERR
	while ((SECONDS < end)); do
		n=$((n + 1))
		f=tree/flat/f$((n % 60))
		d=$deep/x$((n % 7))
		case $((n % 12)) in
		0) cp "$TESTDIR/text" "$f" ;;
		1) head -c $((n % 300))K /dev/urandom >>"$f" 2>/dev/null ;;
		2) truncate -s $((n % 5))K "$f" 2>/dev/null ;;
		3) mv -f "$f" tree/flat/r$n 2>/dev/null; mv -f tree/flat/r$n "$f" 2>/dev/null ;;
		4) rm -f "$f" ;;
		5) mkdir -p "$d/sub" && cp "$TESTDIR/text" "$d/sub/g" ;;
		6) rm -rf "$d" ;;
		7) cp --reflink=always "$TESTDIR/text" "$f" 2>/dev/null || true ;;
		8) fallocate -l 1M "$f" 2>/dev/null || true ;;
		9) fallocate -p -o 4096 -l 16K "$f" 2>/dev/null || true ;;
		10) # move a directory the walk may be inside, and back
			mv "$deep" "$deep.moved" 2>/dev/null &&
				mv "$deep.moved" "$deep" 2>/dev/null ;;
		11) sync -f . ;;
		esac
	done
}
writer &
WRITER=$!
# Stop it before the mounts go, keeping the test's exit status for _cleanup.
trap 'rc=$?; kill $WRITER 2>/dev/null || :; wait $WRITER 2>/dev/null || :; (exit $rc); _cleanup' EXIT

# One report: each line of the table well-formed, every number >= 0.
check_report()
{
	local out=$1 raw=$2 line num='[0-9]+' size
	if [ "$raw" = json ]; then
		[ ! -s "$out" ] || jq -e '[.. | numbers] | all(. >= 0)' "$out" \
			>/dev/null 2>&1 || fail "malformed JSON report: $(head -c 300 "$out")"
		return
	fi
	if [ "$raw" = 1 ]; then
		size='[0-9]+ *'
	else
		size='( {0,3}[0-9]{1,4}[BKMGTPE]| [0-9]+\.[0-9][KMGTPE]) *'
	fi
	while IFS= read -r line; do
		if [[ $line =~ ^Processed\ $num\ files?,\ $num\ regular\ extents\ \($num\ refs\),\ $num\ inline\.$ ]]; then
			continue
		fi
		if [[ $line =~ ^Type\ +Perc\ +Disk\ Usage\ +Uncompressed\ Referenced\ +$ ]]; then
			continue
		fi
		if [[ $line =~ ^(TOTAL|none|zlib|lzo|zstd|prealloc)\ +\ *[0-9]+%\ +$size\ $size\ $size$ ]]; then
			continue
		fi
		fail "malformed report line: '$line'"
		return
	done <"$out"
}

runs=0
while kill -0 $WRITER 2>/dev/null; do
	for args in "${argsets[@]}"; do
		runs=$((runs + 1))
		CHECKS=$((CHECKS + 1))
		rc=0
		# shellcheck disable=SC2086
		timeout 30 "$COMPSIZE" $args >"$OUT/run.out" 2>"$OUT/run.err" || rc=$?
		case $rc in
		0 | 1) ;;
		124) fail "compsize $args: hung (killed after 30 s)" ;;
		*) fail "compsize $args: exit code $rc"; cat "$OUT/run.err" >&2 ;;
		esac
		raw=0
		[[ " $args " == *" -b "* ]] && raw=1
		[[ " $args " == *" --format=json "* ]] && raw=json
		check_report "$OUT/run.out" $raw
		if [ "$rc" = 0 ] && ! [ -s "$OUT/run.out" ]; then
			fail "compsize $args: exit 0 without a report"
		fi
		if grep -Ev '^(compsize: .+: .+|No files\.|All empty or still-delalloced files\.)$' \
			"$OUT/run.err" >&2; then
			fail "compsize $args: unexpected stderr (above)"
		fi
		if [ "${VERBOSE:-0}" = 1 ]; then
			echo "run $runs: rc $rc: $(head -n 1 "$OUT/run.out")"
			cat "$OUT/run.err"
		fi >&2
	done
done
wait $WRITER || true
[ $runs -ge 6 ] || fail "only $runs scans ran"
echo "$runs scans while the filesystem changed" >&2

# Quiet again: the result must be exactly the oracle's.
sync
compare tree
