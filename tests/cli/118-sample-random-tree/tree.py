#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A random tree of every kind of file a sample meets, for tests/cli/118.

  tree.py DIR SEED FILES

DIR is a subvolume.  Files of text, of random bytes and of both, small
enough to be inline or not; text stored inline, then preallocated space
after it, cut back; sparse files; data with preallocated space kept past
its end; reflinked copies, hard links; parts of earlier files overwritten
in later transactions (the bookends of their first writes, written in
several generations); directories, nested subvolumes, and snapshots of
DIR now and then, whose files the later overwrites part from.  The same
seed makes the same tree (its random bytes included).
"""
import os
import random
import subprocess
import sys

D, SEED, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(SEED)
LINE = b"compsize random tree: the quick brown fox jumps over the lazy dog %d\n"


def text(n):
    return b"".join(LINE % i for i in range(n // 60 + 2))[:n]


def noise(n):
    return r.randbytes(n)


def sh(*args):
    subprocess.run(args, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


dirs, files = [D], []
for i in range(N):
    k = r.random()
    if k < 0.08:
        d = os.path.join(r.choice(dirs), "d%d" % i)
        os.mkdir(d)
        dirs.append(d)
        continue
    if k < 0.10 and i > 50:
        d = os.path.join(r.choice(dirs), "sv%d" % i)
        sh("btrfs", "-q", "subvolume", "create", d)
        if os.path.isdir(d):
            dirs.append(d)
        continue
    p = os.path.join(r.choice(dirs), "f%d" % i)
    kind = r.random()
    size = r.choice([r.randrange(1, 4000), r.randrange(4000, 200000),
                     r.randrange(200000, 2000000)])
    if kind < 0.35:
        open(p, "wb").write(text(size))
    elif kind < 0.5:
        open(p, "wb").write(noise(size))
    elif kind < 0.6:
        open(p, "wb").write(text(size // 2) + noise(size // 2))
    elif kind < 0.68:
        # inline text, then preallocated space after it, cut back
        open(p, "wb").write(text(r.randrange(500, 2040)))
        os.sync()
        sh("fallocate", "-l", str(size + 20000), p)
        sh("truncate", "-s", str(size + r.randrange(0, 9000)), p)
    elif kind < 0.74:
        with open(p, "wb") as f:
            f.seek(r.randrange(0, 1 << 20))
            f.write(text(size // 3))
            f.seek(size * 2)
            f.write(b"x")
    elif kind < 0.80:
        open(p, "wb").write(text(size))
        sh("fallocate", "-n", "-o", str(size), "-l",
           str(r.randrange(4096, 1 << 20)), p)
    elif kind < 0.86 and files:
        sh("cp", "--reflink=always", r.choice(files), p)
    elif kind < 0.90 and files:
        try:
            os.link(r.choice(files), p)
        except OSError:
            pass
        continue
    elif kind < 0.96 and files:
        q = r.choice(files)
        if os.path.exists(q):
            with open(q, "r+b") as f:
                f.seek(r.randrange(0, max(1, os.path.getsize(q))))
                f.write(text(r.randrange(1, 300000)) if r.random() < 0.7
                        else noise(r.randrange(1, 300000)))
        continue
    else:
        open(p, "wb").write(text(size))
    files.append(p)
    if r.random() < 0.03:
        os.sync()
    if r.random() < 0.004 and i > 50:
        sh("btrfs", "-q", "subvolume", "snapshot", D,
           os.path.join(os.path.dirname(D), "snap%d" % i))
print(len(files))
