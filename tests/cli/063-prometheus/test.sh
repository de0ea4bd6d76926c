#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format
# --format=prometheus: promtool accepts it, a real node_exporter's textfile
# collector serves it, and every series has the value compsize's JSON of
# the same tree gives (rows, types, counts, --exclusive, --estimate); odd
# path names stay one series each; errors are counted.
. "$(dirname "$0")/../common.sh"

command -v promtool >/dev/null || skip "promtool is not installed (make deps: prometheus)"
command -v prometheus-node-exporter >/dev/null ||
	skip "prometheus-node-exporter is not installed (make deps)"
command -v curl >/dev/null || skip "curl is not installed (make deps)"
here=$(cd "$(dirname "$0")" && pwd)

setup_fs compress=zstd:1
odd=$'odd "q" back\\slash \xff\xfe nl\n é'
mkdir -p data/text data/random data/empty "data/$odd"
text_data 1M >data/text/a
random_data 200K >data/random/r
text_data 1K >data/text/inline
text_data 300K >"data/$odd/f"
remount_fs compress=lzo
text_data 500K >data/text/lzo
cp --reflink=always data/text/a data/random/copy
sync

# check OPTIONS...: the metrics pass promtool and match the JSON of the
# same options; the metrics are left in $OUT/metrics.
check()
{
	expect_ours 0 '' --format=prometheus "$@"
	cp "$OUT/ours.out" "$OUT/metrics"
	CHECKS=$((CHECKS + 1))
	promtool check metrics <"$OUT/metrics" >"$OUT/promtool" 2>&1 ||
		fail "promtool check metrics $*: $(cat "$OUT/promtool")"
	# its rows: --depth=0 (a row per argument) unless asked otherwise
	case " $* " in
	*' --depth='* | *' --per-file '*) run_ours json --format=json "$@" ;;
	*) run_ours json --format=json --depth=0 "$@" ;;
	esac
	CHECKS=$((CHECKS + 1))
	python3 "$here/check.py" "$OUT/metrics" "$OUT/json.out" >/dev/null ||
		fail "--format=prometheus $* differs from its JSON"
}

# Without --depth: a row per argument.
check data
check -b data/text data/random
# A path twice is one series.
check data/text data/random data/text
check --depth=1 data
check --per-file data
check --depth=1 --exclusive data
CHECKS=$((CHECKS + 1))
grep -q '^compsize_exclusive_bytes{path="data/random"} ' "$OUT/metrics" ||
	fail "no exclusive series: $(cat "$OUT/metrics")"
check --depth=1 -e zstd:3,lzo -j 1 data
CHECKS=$((CHECKS + 1))
grep -q '^compsize_estimate_disk_bytes{path="data",setting="compress=zstd:3"} ' "$OUT/metrics" ||
	fail "no estimate series: $(cat "$OUT/metrics")"

# The odd name: one line, UTF-8, as the table prints it.
check --depth=1 data
CHECKS=$((CHECKS + 1))
grep -qF 'compsize_files{path="data/odd \"q\" back\\\\slash \\xff\\xfe nl\\n é"} 1' "$OUT/metrics" ||
	fail "odd path label: $(grep odd "$OUT/metrics")"

# A missing path: said on stderr, counted, the metrics still whole.
expect_ours 1 '^compsize: missing: No such file or directory$' --format=prometheus data/text missing
CHECKS=$((CHECKS + 1))
grep -qx 'compsize_read_errors 1' "$OUT/ours.out" || fail "read errors not counted: $(cat "$OUT/ours.out")"
promtool check metrics <"$OUT/ours.out" >"$OUT/promtool" 2>&1 ||
	fail "promtool check metrics (missing path): $(cat "$OUT/promtool")"

# node_exporter's textfile collector, as a fleet would run it: written to
# a temporary file and renamed, then scraped.
check --depth=1 -e zstd:3 data
mkdir "$TESTDIR/textfile"
cp "$OUT/metrics" "$TESTDIR/textfile/compsize.prom.tmp"
mv "$TESTDIR/textfile/compsize.prom.tmp" "$TESTDIR/textfile/compsize.prom"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TESTDIR/textfile" >"$OUT/node-exporter.log" 2>&1 &
exporter=$!
scraped=0
for i in $(seq 100); do
	if curl -sf "http://127.0.0.1:$port/metrics" >"$OUT/scrape" 2>/dev/null; then
		scraped=1
		break
	fi
	sleep 0.1
done
kill "$exporter"
wait "$exporter" 2>/dev/null || true
CHECKS=$((CHECKS + 1))
[ "$scraped" = 1 ] || fail "node_exporter did not answer: $(cat "$OUT/node-exporter.log")"
CHECKS=$((CHECKS + 1))
grep -qx 'node_textfile_scrape_error 0' "$OUT/scrape" ||
	fail "node_exporter could not read the file: $(grep -i textfile "$OUT/scrape" "$OUT/node-exporter.log")"
CHECKS=$((CHECKS + 1))
python3 "$here/check.py" "$OUT/scrape" "$OUT/json.out" >/dev/null ||
	fail "node_exporter's series differ from the JSON"
