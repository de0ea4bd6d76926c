#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Human-readable sizes around every unit boundary (1024 and 10240 of each
# unit), and percentages.  Inline files give byte-exact totals; reflinked
# preallocated extents give large Referenced sums cheaply.
. "$(dirname "$0")/../common.sh"

# inline_total DIR BYTES: files of at most 2000 bytes (stored inline on a
# plain mount) adding up to BYTES.
inline_total()
{
	local dir=$1 left=$2 i=0 n
	mkdir "$dir"
	while [ "$left" -gt 0 ]; do
		n=$((left > 2000 ? 2000 : left))
		random_data "$n" >"$dir/f$i"
		left=$((left - n))
		i=$((i + 1))
	done
}

setup_fs ""
for total in 1 9 10 99 100 999 1000 1023 1024 1025 1075 1076 1126 2047 \
	10188 10239 10240 10241 11263 11264; do
	inline_total b$total $total
	compare b$total
done

mkdir big
fallocate -l 100M big/p100M
fallocate -l 10236K big/p10236K
fallocate -l 10240K big/p10240K
fallocate -l 10244K big/p10244K
fallocate -l 1020K big/p1020K
fallocate -l 1024K big/p1024K
fallocate -l 1028K big/p1028K
for f in p10236K p10240K p10244K p1020K p1024K p1028K; do
	compare big/$f
done
mkdir refs
for i in $(seq 1 120); do
	cp --reflink=always big/p100M refs/r$i
done
# Referenced: 1.0G .. 12G (powers of 1024 and their tenfold)
compare refs/r1 refs/r2 refs/r3 refs/r4 refs/r5 refs/r6 refs/r7 refs/r8 refs/r9 refs/r10
compare refs/r1 refs/r2 refs/r3 refs/r4 refs/r5 refs/r6 refs/r7 refs/r8 refs/r9 refs/r10 refs/r11
compare refs
compare big refs
