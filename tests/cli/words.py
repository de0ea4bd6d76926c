# SPDX-License-Identifier: GPL-2.0
"""Deterministic text for the tests' data: words a seeded generator picks
(PYTHONPATH=$_CLI_DIR, from words import text)."""

WORDS = ("the quick brown fox jumps over the lazy dog while compsize "
         "counts every extent once and a sample draws a few of them "
         "from each stratum by a hash of its filesystem and inode").split()


def text(rng, n):
    """n bytes of text from rng (a random.Random)."""
    return " ".join(rng.choice(WORDS) for _ in range(n // 3))[:n].encode()
