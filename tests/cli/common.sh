# SPDX-License-Identifier: GPL-2.0
#
# Helpers sourced by every tests/cli/NNN-name/test.sh.
#
# Environment (set by tests/run.sh, or by hand to run one test alone):
#   COMPSIZE  absolute path of the compsize under test
#   ORACLE    reference binary, compsize 1.5 (default /usr/sbin/compsize)
#   TIMEOUT   seconds allowed per compsize invocation (default 60)
#   VERBOSE   1: print every oracle result (to check what a case covers)
#   STATS     1: the statistical tests' many seeds (pick_seeds below)
#   SANITIZED 1: COMPSIZE is built with sanitizers (estimate/test.sh)
#   WALK_TWIN 0: no walk twins (walk_twin below)
#
# A test builds its case on images made by setup_fs, then calls compare (our
# output must equal the oracle's byte for byte: stdout, stderr and exit code,
# with and without -b) or expect_ours (deliberate improvements), each on the
# fast scan and on the path walk (--walk) alike.  Failures are
# counted, not fatal, so one run shows every difference; any command of the
# test itself that fails aborts the test (set -e).  The EXIT trap unmounts
# everything below the test's temporary directory, deepest first, and removes
# it, whatever happened.

set -eE -o pipefail
export LC_ALL=C

: "${COMPSIZE:?COMPSIZE must be set to the compsize under test}"
: "${ORACLE:=/usr/sbin/compsize}"
: "${TIMEOUT:=60}"

FAILURES=0
CHECKS=0
IMAGE_SIZE=${IMAGE_SIZE:-512M}

# run.sh sets CLI_TMPROOT so that its leak check sees only its own tests.
TESTDIR=$(mktemp -d "${CLI_TMPROOT:-/tmp}/compsize-cli.XXXXXX")
OUT=$TESTDIR/out
mkdir -p "$OUT"

# Mount points below $TESTDIR that are still mounted, deepest (latest) first.
_mounts_below_testdir()
{
	# /proc/self/mountinfo lists mounts in mount order; field 5 is the mount
	# point with space, tab, newline and backslash octal-escaped.
	awk -v d="$TESTDIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo |
		tac | while IFS= read -r m; do printf '%b\n' "$m"; done
}

_cleanup()
{
	local rc=$? m tries

	trap - EXIT ERR
	set +e
	cd /
	for tries in 1 2 3; do
		while IFS= read -r m; do
			[ -n "$m" ] || continue
			umount "$m" 2>/dev/null ||
				{ [ "$tries" = 3 ] && umount -l "$m"; }
		done < <(_mounts_below_testdir)
		[ -z "$(_mounts_below_testdir)" ] && break
		sleep 0.2
	done
	if [ -n "$(_mounts_below_testdir)" ]; then
		echo "cleanup: still mounted below $TESTDIR:" >&2
		_mounts_below_testdir >&2
		rc=1
	fi
	# Never descend into something we failed to unmount.
	rm -rf --one-file-system "$TESTDIR"
	if [ "$rc" = 0 ] && [ "$FAILURES" != 0 ]; then
		rc=1
	fi
	if [ "$rc" = 0 ] && [ "$CHECKS" = 0 ]; then
		echo "no check was run" >&2
		rc=1
	fi
	# skip after a failed check is a failure
	if [ "$rc" = 77 ] && [ "$FAILURES" != 0 ]; then
		rc=1
	fi
	exit "$rc"
}
trap _cleanup EXIT
trap 'echo "test aborted: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE

fail()
{
	echo "FAIL: $*" >&2
	FAILURES=$((FAILURES + 1))
}

# pick_seeds MANY FEW: SEEDS (unless given) MANY under make check-stats
# (STATS=1), else FEW; COUNT 1 where the test then checks its counts over
# the seeds (the calibration), 0 where it draws the few with every other
# check.  The counts are the same for the same seeds on every run (fixed
# data, fixed UUIDs), so the calibration need not run on every make check.
pick_seeds()
{
	if [ "${STATS:-0}" = 1 ]; then
		COUNT=1
		SEEDS=${SEEDS:-$1}
	else
		COUNT=0
		SEEDS=${SEEDS:-$2}
	fi
}

# walk_twin LABEL ARGS...: after run_prog LABEL "$COMPSIZE" ARGS..., the
# same on the path walk (--walk, into LABEL-walk) must give the same exit
# code, stdout and stderr, what is measured anew on every run aside (the
# estimates' speeds and CPU costs: steady.py).  For a sample: the walk
# draws the same sample as the fast scan.
walk_twin()
{
	local label=$1 f
	shift
	run_prog "$label-walk" "$COMPSIZE" --walk "$@"
	CHECKS=$((CHECKS + 1))
	for f in rc err out; do
		cp "$OUT/$label.$f" "$OUT/fast.steady"
		cp "$OUT/$label-walk.$f" "$OUT/walk.steady"
		if [ $f = out ]; then
			"$PYTHON" "$_CLI_DIR/steady.py" <"$OUT/$label.$f" >"$OUT/fast.steady"
			"$PYTHON" "$_CLI_DIR/steady.py" <"$OUT/$label-walk.$f" >"$OUT/walk.steady"
		fi
		cmp -s "$OUT/fast.steady" "$OUT/walk.steady" && continue
		fail "compsize $(_quote_args "$@"): on --walk, another $f (rc: exit code)"
		diff -u --label "fast scan" --label "--walk" \
			"$OUT/fast.steady" "$OUT/walk.steady" >&2 || true
	done
}

# run_ours LABEL ARGS...: run_prog LABEL "$COMPSIZE" ARGS..., and its
# walk twin (walk_twin; WALK_TWIN=0: not): what a test then checks of
# $OUT/LABEL.* holds of the path walk too.
run_ours()
{
	local label=$1
	shift
	run_prog "$label" "$COMPSIZE" "$@"
	[ "${WALK_TWIN:-1}" = 0 ] || walk_twin "$label" "$@"
}

# skip REASON: this machine can't run what the test checks; tests/run.sh reports
# SKIP with the reason and counts it (exit 77, as automake's tests do).
skip()
{
	echo "SKIP: $*" >&2
	exit 77
}

# linked_tree DIR ROUNDS [again]: many paths cheaply: 200 small files in
# DIR/d0, then ROUNDS hard-linked copies, each of the one before (with
# "again", that one linked into it once more as again/).
linked_tree()
{
	local dir=$1 rounds=$2 i
	mkdir -p "$dir/d0"
	(cd "$dir/d0" && seq 200 | xargs -n 100 sh -c 'for f; do echo x >"f$f"; done' _)
	for ((i = 1; i <= rounds; i++)); do
		cp -al "$dir/d$((i - 1))" "$dir/d$i"
		[ "${3:-}" != again ] || cp -al "$dir/d$((i - 1))" "$dir/d$i/again"
	done
}

# setup_fs [MOUNT_OPTIONS [MKFS_OPTIONS...]]
# Create a fresh btrfs image, loop-mount it, cd into it and export MNT.
# Each call makes a new filesystem: MNT, MNT2, ... are kept in FS_MNTS.
FS_COUNT=0
FS_MNTS=()
setup_fs()
{
	local opts=${1:-}
	shift || true
	local n=$FS_COUNT img mnt

	FS_COUNT=$((FS_COUNT + 1))
	img=$TESTDIR/img$n
	mnt=$TESTDIR/mnt$n
	truncate -s "$IMAGE_SIZE" "$img"
	mkfs.btrfs -q -f "$@" "$img" >/dev/null
	mkdir -p "$mnt"
	mount -o "loop${opts:+,$opts}" "$img" "$mnt"
	FS_MNTS+=("$mnt")
	MNT=$mnt
	export MNT
	cd "$MNT"
}

# remount_fs OPTIONS: change mount options of $MNT (compression only
# affects new writes).
remount_fs()
{
	sync
	mount -o "remount,$1" "$MNT"
}

# tmpfs_at DIR: mount a small tmpfs on DIR (created if needed).
tmpfs_at()
{
	mkdir -p "$1"
	mount -t tmpfs -o size=4m compsize-cli-tmpfs "$1"
}

# as_nobody BIN: the path of a command that runs a copy of BIN (and of
# the estimator built beside it, if any) as nobody, whatever the
# permissions on the way to BIN; run_prog execs a binary, hence a script.
# The suite's temporary directories are private (mode 700): opened up.
as_nobody()
{
	local est
	chmod o+x "$CLI_TMPROOT" "$TESTDIR"
	cp "$1" "$TESTDIR/compsize-copy"
	est=$(dirname "$1")/compsize-estimate.so
	[ ! -f "$est" ] || cp "$est" "$TESTDIR/"
	chmod 755 "$TESTDIR/compsize-copy"
	cat >"$TESTDIR/as-nobody" <<EOS
#!/bin/sh
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TESTDIR/compsize-copy" "\$@"
EOS
	chmod 755 "$TESTDIR/as-nobody"
	echo "$TESTDIR/as-nobody"
}

# run_prog LABEL BINARY ARGS...: run BINARY as "compsize" (so getopt's and
# our messages name the same program) and keep stdout, stderr and exit code
# in $OUT/LABEL.{out,err,rc}.  The name comes from a symlink "compsize" to
# BINARY in a directory of its own put first in PATH (timeout finds it
# there): no shell between, whose start cost 6 ms of the 18 each run took
# on a slow machine, thousands of times in a pass.
run_prog()
{
	local label=$1 bin=$2 rc=0 dir
	shift 2
	[ "${bin#/}" != "$bin" ] || bin=$PWD/$bin
	dir=$TESTDIR/argv0/${bin//\//_}
	[ -L "$dir/compsize" ] || { mkdir -p "$dir" && ln -s "$bin" "$dir/compsize"; }
	PATH=$dir:$PATH timeout "$TIMEOUT" compsize "$@" \
		>"$OUT/$label.out" 2>"$OUT/$label.err" </dev/null || rc=$?
	echo "$rc" >"$OUT/$label.rc"
}

# numbers LABEL: "files extents refs inline disk uncompressed referenced"
# from the -b report in $OUT/LABEL.out.
numbers()
{
	sed -n 's/^Processed \([0-9]*\) files\{0,1\}, \([0-9]*\) regular extents (\([0-9]*\) refs), \([0-9]*\) inline\..*/\1 \2 \3 \4/p' "$OUT/$1.out"
	awk '$1 == "TOTAL" { print $3, $4, $5 }' "$OUT/$1.out"
}

# sum_numbers "N N ..." "N N ...": the element-wise sum of two numbers lines.
sum_numbers()
{
	local -a a=($1) b=($2)
	local i out=()
	for i in "${!a[@]}"; do
		out+=($((a[i] + b[i])))
	done
	echo "${out[*]}"
}

# Render one run as a single text, for diffing.
_render()
{
	echo "--- stdout"
	cat "$OUT/$1.out"
	echo "--- stderr"
	cat "$OUT/$1.err"
	echo "--- exit code: $(cat "$OUT/$1.rc")"
}

_quote_args()
{
	local a s=""
	for a in "$@"; do
		s+=" $(printf '%q' "$a")"
	done
	echo "${s# }"
}

# compare_once ARGS...: oracle and ours must agree on stdout, stderr and
# exit code, ours on the fast scan (the default) and on the path walk
# (--walk) alike.  WALK_TWIN=0 leaves the walk out (COMPSIZE pointed at
# the oracle itself, which has no --walk).
compare_once()
{
	local run
	CHECKS=$((CHECKS + 1))
	[ "${NO_SYNC:-0}" = 1 ] || sync
	run_prog oracle "$ORACLE" "$@"
	run_prog ours "$COMPSIZE" "$@"
	[ "${WALK_TWIN:-1}" = 0 ] || run_prog ours-walk "$COMPSIZE" --walk "$@"
	if [ "${VERBOSE:-0}" = 1 ]; then
		echo "### compsize $(_quote_args "$@")   (in $PWD)"
		_render oracle
	fi >&2
	for run in ours ours-walk; do
		[ "$run" = ours ] || [ "${WALK_TWIN:-1}" = 1 ] || continue
		cmp -s <(_render oracle) <(_render "$run") && continue
		fail "compsize $([ $run = ours ] || echo '--walk ')$(_quote_args "$@")   (in $PWD)"
		diff -u --label "oracle (compsize 1.5)" --label "$run" \
			<(_render oracle) <(_render "$run") >&2 || true
	done
}

# compare ARGS...: compare_once ARGS, then again with -b.
compare()
{
	compare_once "$@"
	compare_once -b "$@"
}

# compare_nosync ARGS...: compare without the sync first, to see a state
# with changes not yet committed (mount with a long commit=).
compare_nosync()
{
	NO_SYNC=1 compare "$@"
}

# settle: the data written so far under the current directory gets its
# extents in the tree, as FIEMAP_FLAG_SYNC waits for them (btrfs_fiemap()),
# without a commit: else writeback could add them between two runs that
# are compared.
settle()
{
	find . -type f -exec filefrag -s {} + >/dev/null
}

# super_generation [N]: the generation in the superblock of the image of
# the Nth setup_fs (default 0): the last transaction committed.
super_generation()
{
	btrfs inspect-internal dump-super "$TESTDIR/img${1:-0}" |
		awk '$1 == "generation" { print $2 }'
}

# Debian's python3: a wrapper elsewhere on PATH may start slower than the
# window a test has (110: between two commits on a busy machine).
PYTHON=$(command -v /usr/bin/python3 || command -v python3 || true)

# escape_name STRING: STRING as compsize escapes a name in the table, in
# messages and in CSV (man page: --depth), written here from the man page
# alone: backslash, newline, tab as \\ \n \t; other C0, DEL and C1
# control characters and bytes that are not valid UTF-8 as \xHH.
_CLI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
escape_name()
{
	"$PYTHON" "$_CLI_DIR/table_escape.py" "$1"
}

# compare_x ARGS...: compare with and without -x (and -b).
compare_x()
{
	compare "$@"
	compare -x "$@"
}

# expect_ours EXPECTED_RC STDERR_REGEX ARGS...
# For deliberate improvements: run ours only; the exit code must be
# EXPECTED_RC and stderr must have a line matching the extended regex
# STDERR_REGEX; an empty STDERR_REGEX means stderr must be empty, and "*"
# means stderr is not checked here (use ours_stderr_is next).
# Output stays in $OUT/ours.* for further checks (ours_stdout_is...).
# Then the same on --walk (walk_twin; WALK_TWIN=0: not), which must give
# the same exit code, stdout and stderr: every check made of $OUT/ours.*
# holds of the walk too.
expect_ours()
{
	local want_rc=$1 re=$2 rc
	shift 2
	CHECKS=$((CHECKS + 1))
	sync
	run_prog ours "$COMPSIZE" "$@"
	rc=$(cat "$OUT/ours.rc")
	if [ "$rc" != "$want_rc" ]; then
		fail "compsize $(_quote_args "$@"): exit code $rc, expected $want_rc"
		_render ours >&2
		return 0
	fi
	if [ "$re" = "*" ]; then
		:
	elif [ -z "$re" ]; then
		if [ -s "$OUT/ours.err" ]; then
			fail "compsize $(_quote_args "$@"): stderr should be empty"
			_render ours >&2
			return 0
		fi
	elif ! grep -Eq -- "$re" "$OUT/ours.err"; then
		fail "compsize $(_quote_args "$@"): stderr does not match /$re/"
		_render ours >&2
		return 0
	fi
	[ "${WALK_TWIN:-1}" = 0 ] || walk_twin ours "$@"
}

# ours_stderr_is TEXT: the last expect_ours run's stderr is exactly TEXT
# (a trailing newline is added).
ours_stderr_is()
{
	CHECKS=$((CHECKS + 1))
	if ! cmp -s <(printf '%s\n' "$1") "$OUT/ours.err"; then
		fail "stderr of ours is not exactly the expected text"
		diff -u --label expected --label ours \
			<(printf '%s\n' "$1") "$OUT/ours.err" >&2 || true
	fi
}

# ours_stdout_is TEXT: the last expect_ours run's stdout is exactly TEXT
# (a trailing newline is added unless TEXT is empty).
ours_stdout_is()
{
	CHECKS=$((CHECKS + 1))
	if ! cmp -s <(printf '%s' "$1${1:+$'\n'}") "$OUT/ours.out"; then
		fail "stdout of ours is not exactly the expected text"
		diff -u --label expected --label ours \
			<(printf '%s' "$1${1:+$'\n'}") "$OUT/ours.out" >&2 || true
	fi
}

# ours_stdout_matches_oracle ARGS...: the last expect_ours run's stdout equals
# the oracle's stdout for ARGS (which may differ from ours' arguments).
ours_stdout_matches_oracle()
{
	CHECKS=$((CHECKS + 1))
	cp "$OUT/ours.out" "$OUT/ours-kept.out"
	run_prog oracle "$ORACLE" "$@"
	if ! cmp -s "$OUT/oracle.out" "$OUT/ours-kept.out"; then
		fail "stdout of ours differs from oracle's stdout for: compsize $(_quote_args "$@")"
		diff -u --label "oracle $(_quote_args "$@")" --label ours \
			"$OUT/oracle.out" "$OUT/ours-kept.out" >&2 || true
	fi
}

# Data generators (deterministic enough; the oracle sees the same bytes).
# text_data BYTES: highly compressible text.
text_data()
{
	yes "compsize cli test: the quick brown fox jumps over the lazy dog" |
		head -c "$1" || true
}

# raw_text FILE BYTES OPTIONS: text_data written uncompressed into FILE
# on $MNT, which is then remounted with OPTIONS (its compression).
raw_text()
{
	mount -o remount,compress=no "$MNT"
	text_data "$2" >"$1"
	mount -o "remount,$3" "$MNT"
	sync
}

# random_data BYTES: incompressible data.
random_data()
{
	head -c "$1" /dev/urandom
}

# sample_against_full SETTING WIDTHS SEEDS MIN_HIT [MAX_RMS]: --sample
# against the full estimate of the current directory under SETTING (same
# layout, as root): a 99% sample (seeds 1-3) within WIDTHS times its 95%
# interval of it (or 0.01%), and a 10% one's interval holding it at least
# MIN_HIT times of SEEDS; with MAX_RMS, the 10% samples' root mean square
# error at most MAX_RMS millionths of it.  The counts over the seeds only
# where pick_seeds set COUNT=1 (make check-stats).
sample_against_full()
{
	local s=$1 widths=$2 seeds=$3 min_hit=$4 max_rms=${5:-} full got seed
	local held=0 h sq=0
	expect_ours 0 '' -b -e "$s" --format=json .
	full=$(jq '.estimates[0].disk' "$OUT/ours.out")
	for seed in 1 2 3; do
		expect_ours 0 '' -b -e "$s" --sample=99% --seed="$seed" \
			--format=json .
		got=$(jq '.estimates[0] | "\(.disk) \(.disk_ci95)"' -r \
			"$OUT/ours.out")
		CHECKS=$((CHECKS + 1))
		awk -v t="$full" -v g="$got" -v k="$widths" 'BEGIN {
			split(g, v, " "); d = v[1] - t; if (d < 0) d = -d
			exit !(d <= k * v[2] || d <= t / 10000) }' ||
			fail "$s at 99%, seed $seed: $got against the full estimate's $full"
	done
	for seed in $(seq 1 "$seeds"); do
		expect_ours 0 '' -b -e "$s" --sample=10% --seed="$seed" \
			--format=json .
		read -r h sq < <(jq -r --argjson t "$full" --argjson sq "$sq" \
			'.estimates[0] | (.disk - $t) as $d |
			(if ($d | fabs) <= .disk_ci95 then 1 else 0 end) as $h |
			"\($h) \($sq + $d * $d)"' \
			"$OUT/ours.out")
		held=$((held + h))
	done
	[ -z "${VERBOSE:-}" ] || echo "$s: held $held of $seeds at 10%" >&2
	[ "${COUNT:-1}" = 1 ] || return 0
	CHECKS=$((CHECKS + 1))
	[ "$held" -ge "$min_hit" ] ||
		fail "$s at 10%: the interval held the full estimate $held times of $seeds (at least $min_hit)"
	[ -n "$max_rms" ] || return 0
	h=$(awk -v sq="$sq" -v n="$seeds" -v t="$full" 'BEGIN {
		printf "%d", (t > 0 ? 1e6 * sqrt(sq / n) / t : 0) }')
	[ -z "${VERBOSE:-}" ] || echo "$s: rms error $h ppm at 10%" >&2
	CHECKS=$((CHECKS + 1))
	[ "$h" -le "$max_rms" ] ||
		fail "$s at 10%: root mean square error $h millionths of the full estimate $full (at most $max_rms)"
}
