# SPDX-License-Identifier: GPL-2.0
"""compare.py ROOT.out OURS.out TOTAL_PCT TYPE_PCT: two `compsize -b`
tables, compsize 1.5's as root (the oracle) and ours without root: the
files, inline count and every type's Uncompressed and Referenced equal;
TOTAL's Disk Usage within TOTAL_PCT% and each type's within TYPE_PCT%.
Prints the differences."""
import sys


def parse(path):
    rows, head = {}, None
    for line in open(path):
        w = line.split()
        if line.startswith("Processed"):
            head = (int(w[1]), int(w[-2]))
        elif len(w) == 5 and w[0] != "Type":
            rows[w[0]] = tuple(int(x) for x in w[2:5])
    return head, rows


def main():
    (rh, rr), (oh, orows) = parse(sys.argv[1]), parse(sys.argv[2])
    tot, typ = float(sys.argv[3]), float(sys.argv[4])
    bad = []
    if rh != oh:
        bad.append("files/inline %s, oracle %s" % (oh, rh))
    if set(rr) != set(orows):
        bad.append("types %s, oracle %s" % (sorted(orows), sorted(rr)))
    for t in rr:
        if t not in orows:
            continue
        (rd, ru, rf), (od, ou, of) = rr[t], orows[t]
        if (ru, rf) != (ou, of):
            bad.append("%s: uncompressed/referenced %d/%d, oracle %d/%d"
                       % (t, ou, of, ru, rf))
        lim = tot if t == "TOTAL" else typ
        diff = 100.0 * (od - rd) / rd if rd else 0.0
        print("%-8s disk %12d oracle %12d  %+.3f%%" % (t, od, rd, diff))
        if abs(diff) > lim:
            bad.append("%s: disk %d is %+.2f%% off %d (limit %g%%)"
                       % (t, od, diff, rd, lim))
    for b in bad:
        print("FAIL " + b)
    sys.exit(1 if bad else 0)


main()
