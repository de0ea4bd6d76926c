# SPDX-License-Identifier: GPL-2.0
"""A bounded corpus of system files in a tree of fixed shape.

usage: python3 corpus.py DEST FILES MAX_BYTES ROOT...

Takes the regular files of each ROOT in sorted path order (at most
MAX_BYTES each, none empty), in turn from each root, until FILES are
taken, and copies them into DEST in a tree whose shape depends on FILES
alone: the same directories, names and row counts on every machine, only
the bytes are the host's.  A name keeps the file's own suffix (.h, .gz,
.so...), which tells its kind.  Fails (exit 1, one line) where the roots
hold fewer than FILES such files: a smaller tree would pass for the same.

The tree: DEST/gN (one a root) holds directories dNNN of a few files to a
few hundred, drawn from a fixed generator, about one in three with a
subdirectory sN of its own; a directory with a single file is common, as
in /usr/share/doc.
"""

import os
import random
import shutil
import sys


def files_of(root, max_bytes):
    """The regular files under root, sorted by path, 0 < size <= max."""
    found = []
    for d, subdirs, names in os.walk(root):
        subdirs.sort()
        for n in sorted(names):
            p = os.path.join(d, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if os.path.isfile(p) and not os.path.islink(p) \
                    and 0 < st.st_size <= max_bytes:
                found.append(p)
    return sorted(found)


def shape(count, groups):
    """count relative directory paths, the tree's shape (fixed seed)."""
    rng = random.Random(20261203)
    out = []
    g = 0
    d = 0
    while len(out) < count:
        # sizes: most directories small, a few of hundreds of files
        size = min(int(rng.paretovariate(1.1)), 400)
        sub = rng.random() < 0.35
        for i in range(size):
            if len(out) == count:
                break
            path = "g%d/d%03d" % (g, d)
            if sub and i % 2:
                path += "/s%d" % (i % 3)
            out.append(path)
        d += 1
        g = (g + 1) % groups
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__.split("\n\n")[1])
    dest, count, max_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    lists = [files_of(r, max_bytes) for r in sys.argv[4:]]
    taken = []
    at = [0] * len(lists)
    while len(taken) < count and any(at[i] < len(l) for i, l in enumerate(lists)):
        for i, l in enumerate(lists):
            if at[i] < len(l) and len(taken) < count:
                taken.append(l[at[i]])
                at[i] += 1
    if len(taken) < count:
        sys.exit("corpus.py: %s hold %d files of at most %d bytes, not %d"
                 % (" ".join(sys.argv[4:]), len(taken), max_bytes, count))
    dirs = shape(count, len(lists))
    for k, (src, d) in enumerate(zip(taken, dirs)):
        os.makedirs(os.path.join(dest, d), exist_ok=True)
        base = os.path.basename(src)
        dot = base.find(".", 1)
        suffix = base[dot:] if dot > 0 else ""
        shutil.copyfile(src, os.path.join(dest, d, "f%05d%s" % (k, suffix)))


if __name__ == "__main__":
    main()
