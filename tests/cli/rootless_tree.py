# SPDX-License-Identifier: GPL-2.0
"""mktree.py DIR SEED [FILES]: a tree of plain copies: text of several kinds
(words, numbers, a log), some random data, small files stored inline,
files of text and random blocks mixed, from 1 byte to 1 MiB."""
import os
import random
import sys

sys.path.insert(0, os.environ["_CLI_DIR"])
from words import text  # noqa: E402


def log(rng, n):
    out = []
    size = 0
    while size < n:
        line = "2026-12-03 12:%02d:%02d host%d svc[%d]: request %d took %d ms\n" % (
            rng.randrange(60), rng.randrange(60), rng.randrange(8),
            rng.randrange(99999), rng.randrange(10**6), rng.randrange(900))
        out.append(line)
        size += len(line)
    return "".join(out).encode()[:n]


def main():
    top, seed = sys.argv[1], int(sys.argv[2])
    files = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rng = random.Random(seed)
    for d in range(4):
        os.makedirs(os.path.join(top, "d%d" % d), exist_ok=True)
    for i in range(files):
        kind = rng.randrange(5)
        n = rng.choice([1, 300, 1800, 5000, 70000, 200000, 400000, 1 << 20])
        if kind == 0:
            data = text(rng, n)
        elif kind == 1:
            data = log(rng, n)
        elif kind == 2:
            data = rng.randbytes(n)
        elif kind == 3:
            data = b"".join(rng.randbytes(4096) if rng.random() < 0.4
                            else text(rng, 4096) for _ in range(n // 4096 + 1))[:n]
        else:
            data = bytes(str(list(range(rng.randrange(n + 1)))), "ascii")[:n]
        with open(os.path.join(top, "d%d" % (i % 4), "f%02d" % i), "wb") as f:
            f.write(data)


main()
