#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The compsize named by $WALK_COMPSIZE with --walk: lets tests/cli/run.sh run
# the whole suite again on the per-file path walk instead of the fast scan.
exec -a compsize "${WALK_COMPSIZE:?}" --walk "$@"
