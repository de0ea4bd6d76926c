# SPDX-License-Identifier: GPL-2.0
# Helpers sourced by bench/run.sh and bench/qgroup.sh.

# The 1-, 5- and 15-minute load averages.
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# EPOCHREALTIME in microseconds.
now_us() { local t=$EPOCHREALTIME; echo $((10#${t/./})); }

# The median of the numbers on stdin, one a line ("nan" for none).
median()
{
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
