#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""--find's predicates by brute force over a --per-file JSON report (with
--exclusive, --waste and one --estimate setting): the paths of the rows
every predicate holds of, in the report's order, one a line.

  brute.py REPORT.json PREDICATES
"""
import json
import re
import sys
from fractions import Fraction

UNITS = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}
OPS = {'=': lambda a, b: a == b, '!=': lambda a, b: a != b,
       '<': lambda a, b: a < b, '>': lambda a, b: a > b,
       '<=': lambda a, b: a <= b, '>=': lambda a, b: a >= b}


def size(v):
    m = re.fullmatch(r'([0-9.]+)([KMGT]?)', v)
    return int(Fraction(m.group(1)) * UNITS[m.group(2)])


def holds(row, key, op, v):
    t = row['total']
    if key == 'type':
        types = {x['type'] for x in row['types']}
        has = row['inline'] > 0 if v == 'inline' else v in types
        return has if op == '=' else not has
    if key == 'ratio':
        return t['uncompressed'] > 0 and OPS[op](t['disk'] / t['uncompressed'], float(v))
    if key == 'avg-extent':
        return row['extents'] > 0 and OPS[op](Fraction(t['referenced'], row['extents']),
                                               size(v))
    if key == 'extents':
        return OPS[op](row['extents'], int(v))
    value = {'size': t['referenced'], 'disk': t['disk'],
             'shared': max(t['disk'] - t['exclusive'], 0),
             'exclusive': t['exclusive'], 'waste': t['waste'],
             'gain': t['disk'] - row['estimates'][0]['disk'] if 'estimates' in row else None}[key]
    return OPS[op](value, size(v))


def main():
    rows = json.load(open(sys.argv[1]))['paths']
    preds = [re.fullmatch(r'([a-z-]+)(<=|>=|!=|=|<|>)(.*)', p).groups()
             for p in sys.argv[2].split(',')]
    for row in rows:
        if all(holds(row, *p) for p in preds):
            print(row['path'])


main()
