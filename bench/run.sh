#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: our compsize against compsize 1.5 on a large btrfs tree.
# Run by hand (`make bench`), not part of CI.  See bench/README.md.
#
# Usage: bench/run.sh [COMPSIZE]          (default: ./compsize of this repo)
#
# Environment:
#   THEIRS     reference binary (default /usr/sbin/compsize, compsize 1.5)
#   BENCH_DIR  cache for the image and helper binaries
#              (default /var/tmp/compsize-bench; delete it to rebuild)
#   WARM=7 COLD=3   timed runs per program and case (after one warm-up)
#   SECTIONS="size estimate seen"   which sections to run (setup: only
#              build the image)
#   ESTIMATE=auto   auto: estimate section only if COMPSIZE --help mentions
#              --estimate; 1: run the raw-codec baseline even if it doesn't
#   JOBS       -j for --estimate (default: nproc)
#   SAMPLE_MB=200   size of the estimate sample
#   EST_PAIRS=5     alternating runs of the raw codecs and ours --estimate
#
# Needs root (loop mount, drop_caches).  Installs linux-source-6.1,
# libboost1.81-dev and time with apt-get if they are missing.  Exits non-zero
# if the two programs' stdout differ on any run.

set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
. "$here/common.sh"
OURS=$(realpath "${1:-$root/compsize}")
THEIRS=${THEIRS:-/usr/sbin/compsize}
BENCH_DIR=${BENCH_DIR:-/var/tmp/compsize-bench}
WARM=${WARM:-7}
COLD=${COLD:-3}
SECTIONS=${SECTIONS:-size estimate seen}
ESTIMATE=${ESTIMATE:-auto}
JOBS=${JOBS:-$(nproc)}
SAMPLE_MB=${SAMPLE_MB:-200}
EST_PAIRS=${EST_PAIRS:-5}

IMG=$BENCH_DIR/btrfs.img
MNT=$BENCH_DIR/mnt
IMG_SIZE=6G
# Bump when the tree layout changes: an image without this stamp is rebuilt.
LAYOUT=1
TREE=$MNT/tree			# a subvolume
LINUX=$TREE/linux-source-6.1
SNAP=$MNT/snap			# read-only snapshot of $TREE
REFLINK_SRC=$LINUX/fs		# copied with --reflink=always to $TREE/reflink-fs

FAILED=0
T0=$SECONDS
BEFORE_RUN=		# a command run before each timed program (section_pending)

die() { echo "bench: FATAL: $*" >&2; exit 2; }
note() { echo "bench: $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (loop mount, drop_caches)"
[ -x "$OURS" ] || die "$OURS: not executable (run make first)"
[ -x "$THEIRS" ] || die "$THEIRS not installed (Debian package btrfs-compsize)"

need_pkgs()
{
	local p missing=()

	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	note "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# ---------------------------------------------------------------- the tree

mount_image()
{
	mountpoint -q "$MNT" && return 0
	mkdir -p "$MNT"
	mount -o loop,compress=zstd "$IMG" "$MNT"
}

umount_image()
{
	mountpoint -q "$MNT" && umount "$MNT"
	return 0
}

build_tree()
{
	local tarball=/usr/src/linux-source-6.1.tar.xz

	need_pkgs linux-source-6.1 libboost1.81-dev btrfs-progs
	[ -f "$tarball" ] || die "$tarball missing after installing linux-source-6.1"
	[ -d /usr/include/boost ] || die "/usr/include/boost missing"
	note "building $IMG (one time; a few minutes)"
	umount_image
	rm -f "$IMG"
	mkdir -p "$BENCH_DIR"
	truncate -s "$IMG_SIZE" "$IMG"
	mkfs.btrfs -q -f "$IMG" >/dev/null
	mount_image
	btrfs -q subvolume create "$TREE"
	tar -xJf "$tarball" -C "$TREE"
	cp -a /usr/include/boost "$TREE/boost"
	cp -a --reflink=always "$REFLINK_SRC" "$TREE/reflink-fs"
	sync
	btrfs -q subvolume snapshot -r "$TREE" "$SNAP"
	sync
	echo "$LAYOUT" >"$MNT/.layout"
	sync
}

setup_tree()
{
	if [ -f "$IMG" ]; then
		mount_image
		[ "$(cat "$MNT/.layout" 2>/dev/null)" = "$LAYOUT" ] && return 0
		note "$IMG is incomplete or of another layout: rebuilding"
	fi
	build_tree
}

# ---------------------------------------------------------------- timing

# One run at a time per cache: two would fight over the mount.
mkdir -p "$BENCH_DIR"
exec 9>"$BENCH_DIR/lock"
flock -n 9 || die "another bench/run.sh is using $BENCH_DIR"

WORK=$(mktemp -d /tmp/compsize-bench.XXXXXX)
cleanup()
{
	local rc=$?

	cd /
	umount_image || true
	mountpoint -q "$XMNT" && umount "$XMNT"
	rm -f "$XIMG"
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

drop_caches()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# run_one WHO OUTFILE ARGS...: run ours or theirs under GNU time and
# peak-rss; sets ELAPSED_US, CPU_US (user + sys) and RSS_KB (exact VmHWM,
# see peak-rss.c for why not %M).  Wall time includes the exec of
# /usr/bin/time and peak-rss (about a millisecond), the same for both.
run_one()
{
	local who=$1 out=$2 bin t0 t1 rc=0
	shift 2
	case $who in
	ours) bin=$OURS ;;
	theirs) bin=$THEIRS ;;
	esac
	[ -z "$BEFORE_RUN" ] || "$BEFORE_RUN"
	t0=$(now_us)
	/usr/bin/time -f '%U %S' -o "$WORK/time" \
		"$BENCH_DIR/bin/peak-rss" -o "$WORK/hwm" "$bin" "$@" \
		>"$out" 2>"$WORK/err" || rc=$?
	t1=$(now_us)
	ELAPSED_US=$((t1 - t0))
	CPU_US=$(tail -n 1 "$WORK/time" | awk '{ printf "%d\n", ($1 + $2) * 1e6 }')
	RSS_KB=$(cat "$WORK/hwm")
	if [ "$rc" != 0 ]; then
		note "$who exited $rc on: $*"
		sed 's/^/    /' "$WORK/err" >&2
		FAILED=1
	fi
}

# check_same CASE OUTFILE [REF]: stdout must equal compsize 1.5's reference
# (default $WORK/ref.out).  The diff is shown once per case.
check_same()
{
	local ref=${3:-$WORK/ref.out}

	cmp -s "$ref" "$2" && return 0
	echo "bench: FAIL: $1: stdout differs from compsize 1.5's" >&2
	if [ "$DIFF_SHOWN" = 0 ]; then
		diff -u --label "compsize 1.5" --label ours "$ref" "$2" >&2 || true
		DIFF_SHOWN=1
	fi
	FAILED=1
}

# Markdown rows collected for the final table.
ROWS=()

# add_row LABEL FILES MODE TARGET_SPEEDUP: from $WORK/{ours,theirs}.{t,cpu,rss}
add_row()
{
	local label=$1 files=$2 mode=$3 target=$4 to th co ct ro rt load
	to=$(median <"$WORK/ours.t")
	th=$(median <"$WORK/theirs.t")
	co=$(median <"$WORK/ours.cpu")
	ct=$(median <"$WORK/theirs.cpu")
	ro=$(median <"$WORK/ours.rss")
	rt=$(median <"$WORK/theirs.rss")
	load=$(cat "$WORK/load")
	ROWS+=("$(awk -v l="$label" -v f="$files" -v m="$mode" -v tg="$target" \
		-v to="$to" -v th="$th" -v co="$co" -v ct="$ct" -v ro="$ro" -v rt="$rt" -v ld="$load" 'BEGIN {
		s = th / to
		t = ""
		if (tg != "") t = sprintf(">= %gx %s", tg, s >= tg ? "ok" : "MISSED")
		r = sprintf("%d / %d %s", ro, rt, ro <= rt ? "ok" : "MISSED")
		printf "| %s, %s | %d | %.3f | %.3f | %.2fx | %s | %.2f / %.2f | %s | %s |",
			l, m, f, to / 1e6, th / 1e6, s, t, co / 1e6, ct / 1e6, r, ld }')")
}

# bench_case LABEL WARM_TARGET COLD_TARGET ARGS...
bench_case()
{
	local label=$1 wt=$2 ct=$3 files i who order warm
	shift 3

	note "case: $label: compsize $*   (load $(loadavg))"
	# Warm-up (also fills the cache) and the reference output; also compare
	# the exact byte counts (-b), which human-readable sizes round away.
	DIFF_SHOWN=0
	run_one theirs "$WORK/ref-b.out" -b "$@"
	run_one ours "$WORK/run.out" -b "$@"
	check_same "$label (-b)" "$WORK/run.out" "$WORK/ref-b.out"
	run_one theirs "$WORK/ref.out" "$@"
	run_one ours "$WORK/run.out" "$@"
	check_same "$label" "$WORK/run.out"
	files=$(sed -n 's/^Processed \([0-9]*\) files.*/\1/p' "$WORK/ref.out")

	# Runs under 0.1 s are mostly process start-up and noise: take more.
	warm=$WARM
	[ "$ELAPSED_US" -lt 100000 ] && warm=$((WARM * 3))

	: >"$WORK/ours.t"; : >"$WORK/theirs.t"; : >"$WORK/ours.cpu"; : >"$WORK/theirs.cpu"
	: >"$WORK/ours.rss"; : >"$WORK/theirs.rss"
	loadavg >"$WORK/load.start"
	for ((i = 0; i < warm; i++)); do
		# Alternate which goes first: A B, B A, ...
		if ((i % 2)); then order="theirs ours"; else order="ours theirs"; fi
		for who in $order; do
			run_one "$who" "$WORK/run.out" "$@"
			check_same "$label (warm, $who)" "$WORK/run.out"
			echo "$ELAPSED_US" >>"$WORK/$who.t"
			echo "$CPU_US" >>"$WORK/$who.cpu"
			echo "$RSS_KB" >>"$WORK/$who.rss"
		done
	done
	echo "$(cut -d' ' -f1 "$WORK/load.start")-$(loadavg | cut -d' ' -f1)" >"$WORK/load"
	add_row "$label" "$files" warm "$wt"
	note "  warm: ours $(tr '\n' ' ' <"$WORK/ours.t")us; theirs $(tr '\n' ' ' <"$WORK/theirs.t")us"

	[ "$COLD" -gt 0 ] || return 0
	: >"$WORK/ours.t"; : >"$WORK/theirs.t"; : >"$WORK/ours.cpu"; : >"$WORK/theirs.cpu"
	: >"$WORK/ours.rss"; : >"$WORK/theirs.rss"
	loadavg >"$WORK/load.start"
	for ((i = 0; i < COLD; i++)); do
		if ((i % 2)); then order="theirs ours"; else order="ours theirs"; fi
		for who in $order; do
			drop_caches
			run_one "$who" "$WORK/run.out" "$@"
			check_same "$label (cold, $who)" "$WORK/run.out"
			echo "$ELAPSED_US" >>"$WORK/$who.t"
			echo "$CPU_US" >>"$WORK/$who.cpu"
			echo "$RSS_KB" >>"$WORK/$who.rss"
		done
	done
	echo "$(cut -d' ' -f1 "$WORK/load.start")-$(loadavg | cut -d' ' -f1)" >"$WORK/load"
	add_row "$label" "$files" cold "$ct"
	note "  cold: ours $(tr '\n' ' ' <"$WORK/ours.t")us; theirs $(tr '\n' ' ' <"$WORK/theirs.t")us"
}

section_size()
{
	bench_case "whole fs (top subvolume: tree + snapshot)" 5 2 "$MNT"
	bench_case "subdir ~17k files (linux arch/)" 3 "" "$LINUX/arch"
	bench_case "few hundred files (linux fs/btrfs/ + its reflinked copy)" "" "" \
		"$LINUX/fs/btrfs" "$TREE/reflink-fs/btrfs"

	print_rows "compsize vs compsize 1.5" \
		"Cold: \`sync; echo 3 > /proc/sys/vm/drop_caches\` before every run."
}

# print_rows TITLE NOTE: the table of ROWS (bench_case()), emptied.
print_rows()
{
	local r

	echo
	echo "## $1 ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, kernel $(uname -r))"
	echo
	echo "Medians of $WARM warm (x3 for cases under 0.1 s) / $COLD cold runs per program,"
	echo "alternating which program goes first, after untimed warm-up runs (with and without -b)."
	echo "$2"
	echo "Speed-up = compsize 1.5 / ours (wall clock).  CPU = user + sys (GNU time"
	echo "%U + %S, 10 ms resolution; less disturbed by other load than wall clock)."
	echo "RSS = median peak RSS (VmHWM at exit, read by bench/peak-rss.c)."
	echo
	echo "| case | files | ours (median s) | compsize 1.5 (median s) | speed-up | target | CPU s ours / theirs | RSS ours / theirs (KiB), target <= | load 1 min (start-end) |"
	echo "|---|---:|---:|---:|---:|---|---:|---|---|"
	for r in "${ROWS[@]}"; do
		echo "$r"
	done
	echo
	ROWS=()
}

# An access time updated, not yet committed: any inode update leaves its
# subvolume so until the next commit (pending.c), as a live filesystem
# nearly always is.  Checked with bench/pending-state.c before each run.
dirty_atime()
{
	touch -a -d 2020-01-01 "$LINUX/COPYING"
	cat "$LINUX/COPYING" >/dev/null
	"$BENCH_DIR/bin/pending-state" "$TREE" >"$WORK/pending" ||
		{ note "not pending: $(cat "$WORK/pending")"; FAILED=1; }
}

# The size section's first two cases with tree/ in that state: warm only
# (dropping the caches syncs, which commits), the image remounted
# commit=600 meanwhile so that no commit comes between the access time's
# update and the run.
section_pending()
{
	local COLD=0

	build_helper pending-state
	mount -o remount,commit=600 "$MNT"
	BEFORE_RUN=dirty_atime
	bench_case "whole fs, tree/ not committed" 5 "" "$MNT"
	bench_case "tree/ (a subvolume) not committed" 5 "" "$TREE"
	BEFORE_RUN=
	mount -o remount,commit=30 "$MNT"
	print_rows "compsize vs compsize 1.5, changes not yet committed" \
		"Before every run: \`touch -a\` and a read of one file of tree/ (bench/pending-state.c checks the state)."
}

# ---------------------------------------------------------------- estimate

build_helper()
{
	local name=$1
	shift
	mkdir -p "$BENCH_DIR/bin"
	cc -O2 -g -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -o "$BENCH_DIR/bin/$name" \
		"$here/$name.c" "$@"
}

# est_raw I: one codec-speed run over the sample into $WORK/codec.I; sets
# RAW_ALL (MB/s of all four, one after another, CPU time).
est_raw()
{
	find "${dirs[@]}" -type f -print0 |
		"$BENCH_DIR/bin/codec-speed" >"$WORK/codec.$1"
	RAW_ALL=$(awk '{ t += $4; b = $2 } END { printf "%.3f", b / t / 1e6 }' "$WORK/codec.$1")
}

# est_raw_parallel N: N codec-speed runs at once (one per core, as ours
# runs -j N); sets RAW_PAR (MB/s of all four, summed over the N runs, each
# by its wall time): what the cores give together, with their shared cache
# and memory, which single-thread x N does not see.
est_raw_parallel()
{
	local k

	for ((k = 0; k < $1; k++)); do
		find "${dirs[@]}" -type f -print0 |
			"$BENCH_DIR/bin/codec-speed" >"$WORK/codec.par.$k" &
	done
	wait
	RAW_PAR=$(for ((k = 0; k < $1; k++)); do
		awk '{ t += $5; b = $2 } END { printf "%.6f\n", b / t / 1e6 }' \
			"$WORK/codec.par.$k"
	done | awk '{ s += $1 } END { printf "%.3f", s }')
}

# est_ours: one run of ours; sets OURS_T and OURS_CPU (us).
est_ours()
{
	run_one ours "$WORK/est.out" --estimate=zstd:1,zstd:3,lzo,zlib:3 \
		-j "$JOBS" "${dirs[@]}"
	OURS_T=$ELAPSED_US
	OURS_CPU=$CPU_US
}

section_estimate()
{
	local has_est=0 n bytes dirs raw_all cores i

	"$OURS" --help 2>&1 | grep -- --estimate >/dev/null && has_est=1
	if [ "$has_est" = 0 ] && [ "$ESTIMATE" != 1 ]; then
		note "estimate: $OURS --help has no --estimate: section skipped (ESTIMATE=1 runs the codec baseline anyway)"
		return 0
	fi
	need_pkgs pkg-config libzstd-dev liblzo2-dev zlib1g-dev
	build_helper codec-speed $(pkg-config --cflags --libs libzstd lzo2 zlib)

	# The sample: whole directories (so both programs get the same few
	# arguments), in this order until SAMPLE_MB is reached.
	dirs=()
	bytes=0
	for d in "$LINUX/drivers/net/ethernet" "$LINUX/fs" "$TREE/boost" \
		"$LINUX/kernel" "$LINUX/sound" "$LINUX/drivers/gpu" "$LINUX/drivers"; do
		[ $((bytes / 1000000)) -lt "$SAMPLE_MB" ] || break
		dirs+=("$d")
		bytes=$((bytes + $(find "$d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')))
	done
	n=$(find "${dirs[@]}" -type f | wc -l)
	echo "## --estimate throughput"
	echo
	echo "Sample: ${dirs[*]#"$MNT/"}: $n files, $((bytes / 1000000)) MB."
	echo
	# Raw codecs and ours alternate, EST_PAIRS times: the speed of a
	# shared machine drifts by several percent over a minute, so each run
	# of ours is compared with the raw run next to it, and the section
	# reports the median of those ratios.
	cores=$(nproc)
	[ "$JOBS" -lt "$cores" ] && cores=$JOBS
	note "estimate: $EST_PAIRS pairs of raw codecs (1 thread) and ours (-j $JOBS) (load $(loadavg))"
	: >"$WORK/est.pairs"
	for ((i = 0; i < EST_PAIRS; i++)); do
		# est_file drops the page cache behind its reads of files that
		# were not all cached: read them back first so every run starts
		# warm like codec-speed's in-memory sample.
		find "${dirs[@]}" -type f -print0 | xargs -0 cat >/dev/null
		if ((i % 2)) && [ "$has_est" = 1 ]; then
			est_ours
			est_raw "$i"
		else
			est_raw "$i"
			[ "$has_est" = 1 ] && est_ours
		fi
		# raw MB/s of all four, ours wall us, ours CPU us, run index
		echo "$RAW_ALL ${OURS_T:-0} ${OURS_CPU:-0} $i" >>"$WORK/est.pairs"
	done
	note "  raw all four MB/s, ours us: $(awk '{ printf "%.1f/%s ", $1, $2 }' "$WORK/est.pairs")"
	est_raw_parallel "$cores"
	note "  raw, $cores at once: $RAW_PAR MB/s"
	# The codec table: the raw run with the median all-four figure.
	i=$(sort -n "$WORK/est.pairs" | awk -v n="$EST_PAIRS" 'NR == int((n + 1) / 2) { print $4 }')
	cp "$WORK/codec.$i" "$WORK/codec"
	echo "| codec (kernel framing, median of $EST_PAIRS runs) | MB/s, 1 thread (CPU time) | ratio in/out |"
	echo "|---|---:|---:|"
	awk '{ printf "| %s | %.1f | %.2f |\n", $1, $2 / $4 / 1e6, $2 / $3 }' "$WORK/codec"
	raw_all=$(awk '{ print $1 }' "$WORK/est.pairs" | median)
	printf '| all four, one after another | %.1f | |\n' "$raw_all"
	echo
	# Not the target's baseline (that is 1 thread x cores, as the issue
	# defines it): what the cores give when busy together, for context.
	awk -v p="$RAW_PAR" -v r="$raw_all" -v c="$cores" 'BEGIN {
		printf "Raw codecs, %d runs at once (one per core, wall time): %.1f MB/s together, %.0f%% of one run x %d.\n\n",
			c, p, p / (r * c) * 100, c }'
	if [ "$has_est" = 0 ]; then
		echo "($OURS has no --estimate: ours not measured.)"
		echo
		return 0
	fi
	echo "| ours --estimate=zstd:1,zstd:3,lzo,zlib:3 -j $JOBS, $EST_PAIRS runs | median s | MB/s of input | raw all four | ours / raw (median of the $EST_PAIRS pairs) | range | target |"
	echo "|---|---:|---:|---:|---:|---|---|"
	# per pair: wall ratio = (bytes / wall) / (raw x cores); CPU ratio =
	# (bytes / CPU) / raw
	awk -v b="$bytes" -v c="$cores" '{ printf "%.6f %.6f\n", b / $2 / ($1 * c), b / $3 / $1 }' \
		"$WORK/est.pairs" >"$WORK/est.ratios"
	awk -v b="$bytes" -v s="$(awk '{ print $2 }' "$WORK/est.pairs" | median)" \
		-v cpu="$(awk '{ print $3 }' "$WORK/est.pairs" | median)" \
		-v r="$raw_all" -v c="$cores" \
		-v qw="$(awk '{ print $1 }' "$WORK/est.ratios" | median)" \
		-v qc="$(awk '{ print $2 }' "$WORK/est.ratios" | median)" \
		-v rw="$(awk '{ print $1 }' "$WORK/est.ratios" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f%%", lo * 100, hi * 100 }')" \
		-v rc="$(awk '{ print $2 }' "$WORK/est.ratios" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f%%", lo * 100, hi * 100 }')" 'BEGIN {
		printf "| wall clock (raw x %d cores) | %.2f | %.1f | %.1f | %.0f%% | %s | >= 90%% %s |\n",
			c, s / 1e6, b / s, r * c, qw * 100, rw, (qw >= 0.9 ? "ok" : "MISSED")
		printf "| CPU time (user + sys; raw x 1) | %.2f | %.1f | %.1f | %.0f%% | %s | |\n",
			cpu / 1e6, b / cpu, r, qc * 100, rc }'
	echo
	echo "Load during the section: $(loadavg)."
	echo
}

# ---------------------------------------------------------------- seen set

section_seen()
{
	note "seen: building seen.o with the project's Makefile"
	make -s -C "$root" seen.o >&2
	build_helper seen-mem -I"$root" "$root/seen.o"
	echo "## Shared-extent set (seen.c), 1,000,000 distinct extents"
	echo
	echo "| keys | bytes/extent (seen_memory) | peak RSS growth, bytes/extent | ns/insert | target |"
	echo "|---|---:|---:|---:|---|"
	for layout in scattered sequential; do
		"$BENCH_DIR/bin/seen-mem" 1000000 "$layout"
	done | awk '{
		printf "| %s | %.1f | %.1f | %.0f | <= 32 bytes/extent %s |\n",
			$1, $2, $4, $3, ($2 <= 32 ? "ok" : "MISSED") }'
	echo
}

# ---------------------------------------------------------------- main

# ---------------------------------------------------------------- exclusive

# Its own image: /usr/share (tens of thousands of files) in subvolume tree/
# with one read-only snapshot, kept as $XBASE; each run works on a copy,
# adding snapshots with changes between them.
XBASE=$BENCH_DIR/exclusive-base.img
XIMG=$BENCH_DIR/exclusive-work.img
XMNT=$BENCH_DIR/xmnt
XLAYOUT=1

x_build()
{
	[ -f "$XBASE" ] && [ "$(cat "$XBASE.layout" 2>/dev/null)" = "$XLAYOUT" ] && return 0
	note "exclusive: building $XBASE from /usr/share (one time)"
	rm -f "$XBASE"
	truncate -s 4G "$XBASE"
	mkfs.btrfs -q -f "$XBASE" >/dev/null
	mkdir -p "$XMNT"
	mount -o loop,compress=zstd "$XBASE" "$XMNT"
	btrfs -q subvolume create "$XMNT/tree"
	cp -a /usr/share "$XMNT/tree/share"
	sync
	btrfs -q subvolume snapshot -r "$XMNT/tree" "$XMNT/snap01"
	umount "$XMNT"
	echo "$XLAYOUT" >"$XBASE.layout"
}

# x_snapshots FROM TO: snapshots snapFROM..snapTO of tree/, each after
# appending random data to 10 files of tree/share/doc (the same files for
# the same snapshot number on every run).
x_snapshots()
{
	local i f
	for ((i = $1; i <= $2; i++)); do
		find "$XMNT/tree/share/doc" -type f -name '*.gz' | sort |
			shuf -n 10 --random-source=<(yes "$i") | while read -r f; do
				head -c 8K /dev/urandom >>"$f"
			done
		btrfs -q subvolume snapshot -r "$XMNT/tree" "$XMNT/$(printf 'snap%02d' "$i")"
	done
	sync
}

# x_time LABEL N CMD...: median wall time of N warm runs into $WORK/LABEL.t
# (and peak RSS into $WORK/LABEL.rss); one untimed run first.
x_time()
{
	local label=$1 n=$2 i t0 t1
	shift 2
	"$@" >/dev/null 2>&1 || true
	: >"$WORK/$label.t"
	: >"$WORK/$label.rss"
	for ((i = 0; i < n; i++)); do
		t0=$(now_us)
		"$BENCH_DIR/bin/peak-rss" -o "$WORK/hwm" "$@" >/dev/null 2>"$WORK/err" ||
			{ note "$label failed: $(cat "$WORK/err")"; FAILED=1; }
		t1=$(now_us)
		echo $((t1 - t0)) >>"$WORK/$label.t"
		cat "$WORK/hwm" >>"$WORK/$label.rss"
	done
}

# x_pair LABEL: ours --exclusive tree against btrfs filesystem du -s tree,
# alternating, $WARM runs each; appends a table row.
x_pair()
{
	local label=$1 i to tb ext ro rp
	: >"$WORK/xo.t"; : >"$WORK/xb.t"
	for ((i = 0; i < WARM; i++)); do
		x_time xo1 1 "$OURS" --exclusive "$XMNT/tree"
		x_time xb1 1 btrfs filesystem du -s "$XMNT/tree"
		cat "$WORK/xo1.t" >>"$WORK/xo.t"
		cat "$WORK/xb1.t" >>"$WORK/xb.t"
	done
	to=$(median <"$WORK/xo.t")
	tb=$(median <"$WORK/xb.t")
	# memory per extent of the set: --exclusive against the same scan without
	x_time xr 3 "$OURS" --exclusive "$XMNT/tree"
	x_time xp 3 "$OURS" "$XMNT/tree"
	ro=$(median <"$WORK/xr.rss")
	rp=$(median <"$WORK/xp.rss")
	ext=$("$OURS" -b "$XMNT/tree" | sed -n 's/.*files, \([0-9]*\) regular extents.*/\1/p')
	XROWS+=("$(awk -v l="$label" -v to="$to" -v tb="$tb" -v ro="$ro" -v rp="$rp" -v e="$ext" -v ld="$(loadavg | cut -d' ' -f1)" 'BEGIN {
		s = tb / to
		printf "| %s | %.3f | %.3f | %.1fx | >= 3x %s | %d | %d / %d | %.0f | %s |",
			l, to / 1e6, tb / 1e6, s, (s >= 3 ? "ok" : "MISSED"), e, ro, rp,
			(ro - rp) * 1024 / e, ld }')")
}

section_exclusive()
{
	XROWS=()
	x_build
	note "exclusive: copying the base image"
	cp --sparse=always "$XBASE" "$XIMG"
	mkdir -p "$XMNT"
	mount -o loop,compress=zstd "$XIMG" "$XMNT"
	x_pair "tree/ + 1 snapshot"
	x_snapshots 2 10
	x_pair "tree/ + 10 snapshots"
	# --subvolumes: every subvolume's row and exclusive bytes, against
	# btrfs filesystem du -s over every subvolume (its Exclusive column)
	x_snapshots 11 50
	x_time xs 3 "$OURS" --subvolumes "$XMNT"
	x_time xd 1 btrfs filesystem du -s "$XMNT"/tree "$XMNT"/snap*
	XSUB=$(awk -v ts="$(median <"$WORK/xs.t")" -v td="$(median <"$WORK/xd.t")" \
		-v rs="$(median <"$WORK/xs.rss")" -v n="$(ls -d "$XMNT"/snap* | wc -l)" \
		'BEGIN { printf "| %d snapshots + tree/ | %.1f | %.1f | %.1fx | %d |", n, ts / 1e6, td / 1e6, td / ts, rs }')
	umount "$XMNT"
	rm -f "$XIMG"

	echo "## --exclusive ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, kernel $(uname -r))"
	echo
	echo "/usr/share ($(find /usr/share -type f | wc -l) files) in subvolume tree/ of a loop btrfs"
	echo "(compress=zstd); snapshots taken with 10 files changed between each two."
	echo "Medians of $WARM warm runs each, alternating.  Memory: peak RSS of"
	echo "\`--exclusive\` minus the same scan without it, per distinct extent of the set."
	echo
	echo "| case | ours --exclusive (s) | btrfs fi du -s (s) | speed-up | target | extents | RSS KiB with / without | bytes/extent | load |"
	echo "|---|---:|---:|---:|---|---:|---|---:|---|"
	for r in "${XROWS[@]}"; do
		echo "$r"
	done
	echo
	echo "\`--subvolumes\` on the whole filesystem against \`btrfs filesystem du -s\` of every"
	echo "subvolume (median of 3 warm runs; du once):"
	echo
	echo "| case | ours --subvolumes (s) | btrfs fi du -s (s) | speed-up | peak RSS KiB |"
	echo "|---|---:|---:|---:|---:|"
	echo "$XSUB"
	echo
}

need_pkgs time
build_helper peak-rss
echo "# compsize benchmark"
echo
echo "- ours: $OURS ($("$OURS" --version 2>&1 | head -n 1), built $(date -u -r "$OURS" '+%H:%M UTC'); tree $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?'))"
echo "- theirs: $THEIRS (Debian $(dpkg-query -W -f='${Version}' btrfs-compsize 2>/dev/null || echo '?'))"
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) cores, load at start $(loadavg)"
echo
for s in $SECTIONS; do
	case $s in
	size)
		setup_tree
		section_size
		;;
	estimate)
		setup_tree
		section_estimate
		;;
	pending)
		setup_tree
		section_pending
		;;
	seen) section_seen ;;
	exclusive) section_exclusive ;;
	setup) setup_tree ;;
	*) die "unknown section $s" ;;
	esac
done
echo "Load at end: $(loadavg).  Benchmark took $((SECONDS - T0)) s."
if [ "$FAILED" != 0 ]; then
	echo
	echo "**FAILED: see the messages above (outputs differ or a program failed).**"
	echo "bench: FAILED" >&2
	exit 1
fi
