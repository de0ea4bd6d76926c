#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust serial san
# Alone (group serial): it reads changes not yet committed (commit=600):
#   another test's sync would commit them
# Random file operations (writes of five kinds of data, reflinks, hard
# links, renames, deletes, overwrites, truncates, fallocate, punched holes,
# subvolumes and snapshots, the odd sync) on images mounted with a long
# commit interval, so that most checks see changes not yet committed; every
# few operations the report, --exclusive, --subvolumes and a sample are
# checked against their oracles (ops.py).  Fixed seeds: a failure names the
# seed and the operations that led to it.
. "$(dirname "$0")/../common.sh"

[ -n "$PYTHON" ] || skip "no python3"
ops=$(cd "$(dirname "$0")" && pwd)/ops.py
for run in "1 compress=zstd:3" "2 compress-force=zlib:3" "3 compress=lzo" \
	"4 "; do
	seed=${run%% *}
	opts=${run#* }
	setup_fs "commit=600${opts:+,$opts}"
	if out=$(ORACLE=$ORACLE "$PYTHON" "$ops" "$MNT" "$seed" 80 2>&1); then
		n=${out##*checks }
		CHECKS=$((CHECKS + n))
		[ "${VERBOSE:-0}" = 1 ] && echo "seed $seed ($opts): $n checks"
	else
		fail "$out"
	fi
	cd /
done
true
