#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora in tests/fuzz/corpus/<target>/: small valid inputs
built the way the kernel and btrfs lay them out, so that fuzzing starts from
the interesting shapes instead of rediscovering them.  Run from anywhere;
the files are committed, rerun only to change them."""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = random.Random(1)
EXTENT_DATA = 108
INLINE, REG, PREALLOC = 0, 1, 2


def header(objectid, offset, length, typ=EXTENT_DATA, transid=7):
    # struct btrfs_ioctl_search_header, CPU (little-endian here) order
    return struct.pack('<QQQII', transid, objectid, offset, typ, length)


def inline(ram, comp, payload):
    body = struct.pack('<QQBBHB', 7, ram, comp, 0, 0, INLINE) + payload
    return header(257, 0, len(body)) + body


def reg(ino, off, bytenr, disk, ram, ext_off, num, comp=0, typ=REG):
    body = struct.pack('<QQBBHBQQQQ', 7, ram, comp, 0, 0, typ, bytenr, disk,
                       ext_off, num)
    assert len(body) == 53
    return header(ino, off, len(body)) + body


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def extents():
    # byte 0: sector size index (1: 4096) and -b (4)
    write('extents', 'empty', b'\x01')
    write('extents', 'inline-zstd', b'\x01' + inline(3000, 3, b'x' * 60))
    write('extents', 'reg-none', b'\x05' +
          reg(257, 0, 1 << 20, 128 << 10, 128 << 10, 0, 128 << 10))
    # a reflink inside one file, a hole, a prealloc, two files
    write('extents', 'mixed', b'\x01' +
          reg(257, 0, 1 << 20, 4096, 128 << 10, 0, 128 << 10, comp=1) +
          reg(257, 128 << 10, 1 << 20, 4096, 128 << 10, 4096, 8192, comp=1) +
          reg(257, 256 << 10, 0, 0, 64 << 10, 0, 64 << 10) +
          reg(257, 320 << 10, 2 << 20, 1 << 20, 1 << 20, 0, 1 << 20,
              typ=PREALLOC) +
          reg(258, 0, 1 << 20, 4096, 128 << 10, 0, 128 << 10, comp=1) +
          reg(258, 128 << 10, 3 << 20, 8192, 8192, 0, 8192, comp=2))
    # an unknown compression byte and a truncated last item
    write('extents', 'odd', b'\x02' +
          reg(257, 0, 1 << 20, 4096, 8192, 0, 8192, comp=9) +
          header(257, 8192, 53) + b'\x01' * 20)


def search():
    # bytes 0-1: no failing call; then 10 bytes per item (see search.c)
    def item(step, length, typ, comp, page, pages, disk_pages):
        return struct.pack('<HHBBHBB', step, length, typ, comp, page,
                           pages, disk_pages)
    regular = 0x8000
    write('search', 'one-inline', b'\x00\x00' + item(0, 100, INLINE, 3, 0, 0, 0))
    write('search', 'regular', b'\x00\x00' +
          b''.join(item(4096, regular, REG, 1, 256 + i, 31, 0)
                   for i in range(8)))
    # enough big items to need several ioctl batches
    write('search', 'batches', b'\x00\x00' +
          b''.join(item(4096, 16000, INLINE, 0, 0, 3, 0) for i in range(40)))
    write('search', 'fail-2nd', b'\x02\x00' +
          b''.join(item(4096, 16000, INLINE, 0, 0, 3, 0) for i in range(40)))


def tree():
    # byte 0: the directory scanned (0: subvolume root 256, 1: dir 257)
    # and -x (0x80); then 8 bytes per item (see fastscan.c)
    def item(tree, obj, typ, off, p1, p2, p3):
        return struct.pack('<BBBHBBB', tree, obj, typ, off, p1, p2, p3)
    fs, sub, root = 0, 1, 3
    inode, index, extent, ref = 0, 1, 2, 3
    items = (
        item(fs, 0, inode, 0, 1, 1, 0) +        # 256: directory
        item(fs, 1, inode, 0, 1, 1, 0) +        # 257: directory
        item(fs, 2, inode, 0, 0, 2, 0) +        # 258: file, 2 links
        item(fs, 0, index, 2, 1, 2, 0) +        # 256/257
        item(fs, 1, index, 2, 2, 0, 0) +        # 257/258
        item(fs, 1, index, 3, 2, 0, 0) +        # 257/258 again
        item(fs, 2, extent, 0, 1, 1, 5) +       # 258: zlib extent
        item(fs, 2, extent, 8, 0, 3, 40) +      # 258: inline zstd
        item(fs, 0, index, 4, 0, 1, 0) +        # 256/subvolume 256
        item(root, 0, ref, 0, 0, 0, 0) +        # 256 is in 5, dir 256
        item(sub, 0, inode, 0, 1, 1, 0) +
        item(sub, 1, inode, 0, 0, 1, 0) +
        item(sub, 0, index, 2, 1, 0, 0) +
        item(sub, 1, extent, 0, 1, 3, 9))
    write('tree', 'subvol-root', b'\x00' + items)
    write('tree', 'dir-257', b'\x01' + items)
    write('tree', 'one-fs', b'\x80' + items)
    # changes not yet committed (0x20): names from inode refs and extrefs,
    # an orphan; DIR_INDEX items that lag
    iref, extref, orphan, dindex = 4, 5, 6, 7
    names = (
        item(fs, 1, iref, 0, 0, 0, 0) +         # 257 in 256
        item(fs, 2, iref, 0, 0, 0x40, 1) +      # 258: two names in 257
        item(fs, 3, inode, 0, 0, 1, 0) +        # 259: file, open, unlinked
        item(fs, 3, iref, 0, 0, 5, 1) +
        item(fs, 3, extent, 0, 1, 1, 7) +
        item(fs, 0, orphan, 0, 3, 0, 0) +       # 259's orphan item
        item(fs, 4, inode, 0, 0, 1, 0) +        # 260: a name in an extref
        item(fs, 4, extref, 0, 0, 6, 1) +
        item(fs, 4, extent, 0, 1, 1, 6) +
        item(fs, 1, dindex, 9, 4, 0, 0))        # 257/260, lagging
    write('tree', 'pending-root', b'\x20' + items + names)
    write('tree', 'pending-dir-257', b'\x21' + items + names)
    # a byte after the items: subvolume 256 deleted at that search of it
    write('tree', 'nested-deleted', b'\x00' + items + b'\x01')
    write('tree', 'nested-deleted-later', b'\x00' + items + b'\x02')


def estimate():
    text = b'the quick brown fox jumps over the lazy dog\n' * 200
    write('estimate', 'parse', b'\x00zstd:3,compress-force=lzo,zlib:1..9,all')
    for mode, name in ((1, 'roundtrip'), (4, 'writepath')):
        for alg in range(3):
            write('estimate', '%s-%d' % (name, alg),
                  bytes([mode, alg, 3, 0, 8]) + text)
    write('estimate', 'random-writepath', bytes([4, 0, 3]) + RNG.randbytes(9000))
    write('estimate', 'garbage', bytes([2, 1, 3, 0, 4]) + RNG.randbytes(300))
    write('estimate', 'heuristic', bytes([3, 0, 16, 0, 0, 32]) + text)


def batch():
    # bytes 0-1: no failing call; u16 items; 4 bytes per item (see batch.c)
    def items(spec):
        return struct.pack('<H', len(spec)) + b''.join(
            bytes([step | kind << 2]) + struct.pack('<H', length)
            for step, kind, length in spec)

    def questions(inos, flags=0):
        return b''.join(struct.pack('<H', (i - 256) | flags) for i in inos)

    # its own generator: the other corpora stay as they are
    rng = random.Random(2)
    # a cp -a tree: inode item, ref, one extent (inline or regular) a file
    tree = []
    for f in range(300):
        tree += [(1, 0, 160), (0, 1, 30), (0, 5, rng.choice((53, 800, 2000)))]
    write('batch', 'in-order', b'\x00\x00' + items(tree) +
          questions(range(257, 557, 2)))
    write('batch', 'out-of-order', b'\x00\x00' + items(tree) +
          questions(rng.sample(range(257, 557), 200)))
    write('batch', 'two-subvols', b'\x00\x00' + items(tree) +
          questions(range(257, 400, 3)) + questions(range(257, 400, 3), 0x8000))
    # a file whose extents fill several buffers among small ones
    big = [(1, 0, 160), (0, 5, 16000)] + [(0, 5, 16000)] * 12
    write('batch', 'big-file', b'\x00\x00' + items(tree[:30] + big + tree[:30]) +
          questions((257, 262, 267, 268, 275, 258), 0) +
          questions((267,), 0x4000))
    write('batch', 'fail-3rd', b'\x03\x04' + items(tree) +
          questions(rng.sample(range(257, 557), 60)))


extents()
search()
batch()
tree()
estimate()
