#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The oracle of --waste, from btrfs-progs' dump-tree of every subvolume
tree: each extent's waste is its disk bytes times the part of its
uncompressed range that no EXTENT_DATA item of any tree maps.

  waste.py clone SRC DST SRC_OFF LEN DST_OFF   FICLONERANGE (a partial reflink)
  waste.py oracle IMAGE TREES... -- PATH=ROOT:INO...
      prints the waste of the files (each extent once), then each file's,
      "total BYTES" then "PATH BYTES" lines sorted by path
"""
import fcntl
import os
import re
import struct
import subprocess
import sys

FICLONERANGE = 0x4020940d


def clone(src, dst, soff, length, doff):
    with open(src, 'rb') as s, open(dst, 'r+b' if os.path.exists(dst) else 'wb') as d:
        fcntl.ioctl(d.fileno(), FICLONERANGE,
                    struct.pack('=qQQQ', s.fileno(), int(soff), int(length), int(doff)))


KEY = re.compile(r'item \d+ key \((\d+) EXTENT_DATA (\d+)\)')
DISK = re.compile(r'extent data disk byte (\d+) nr (\d+)')
OFF = re.compile(r'extent data offset (\d+) nr (\d+) ram (\d+)')


def items(image, tree):
    out = subprocess.run(['btrfs', 'inspect-internal', 'dump-tree', '-t', tree, image],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    ino = disk = None
    for line in out.splitlines():
        m = KEY.search(line)
        if m:
            ino, disk = int(m.group(1)), None
            continue
        m = DISK.search(line)
        if m and ino is not None:
            disk = (int(m.group(1)), int(m.group(2)))
            continue
        m = OFF.search(line)
        if m and disk and disk[0]:
            yield ino, disk[0], disk[1], int(m.group(1)), int(m.group(2)), int(m.group(3))
            ino = disk = None


def union(ranges):
    total, s, e = 0, 0, 0
    for a, b in sorted(ranges):
        if a > e:
            total += e - s
            s, e = a, b
        elif b > e:
            e = b
    return total + e - s


def oracle(image, trees, files):
    ranges, size, mine = {}, {}, {}
    for tree in trees:
        for ino, bytenr, disk, off, num, ram in items(image, tree):
            ranges.setdefault(bytenr, []).append((off, min(off + num, ram)))
            size[bytenr] = (disk, ram)
            mine.setdefault((tree, ino), set()).add(bytenr)
    waste = {b: size[b][0] * (size[b][1] - union(r)) // size[b][1]
             for b, r in ranges.items()}
    every = set()
    per = []
    for f in files:
        path, key = f.rsplit('=', 1)
        root, ino = key.split(':')
        ext = mine.get((root, int(ino)), set())
        every |= ext
        per.append('%s %d' % (path, sum(waste[b] for b in ext)))
    print('total', sum(waste[b] for b in every))
    for p in sorted(per):
        print(p)


if __name__ == '__main__':
    if sys.argv[1] == 'clone':
        clone(*sys.argv[2:7])
    else:
        i = sys.argv.index('--')
        oracle(sys.argv[2], sys.argv[3:i], sys.argv[i + 1:])
