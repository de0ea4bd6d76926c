/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --levels: the compression level of each compressed extent of the files
 * met, told by the estimator (est_ops.lvl_match()) from the extent's bytes
 * as stored (BTRFS_IOC_ENCODED_READ, root), each extent once, and summed
 * by algorithm and set of levels for the report (struct report_level).
 */
#ifndef COMPSIZE_LEVELS_H
#define COMPSIZE_LEVELS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include "report/model.h"

struct levels;

/* Needs the estimator loaded (est_plugin_ops()).  NULL with errno set. */
struct levels *levels_create(void);
void levels_free(struct levels *lv);

/*
 * The compressed extents of the regular file open on fd (st its stat)
 * not met before (FIEMAP's ENCODED extents, each read whole, a part
 * referenced or not), each counted under the levels that reproduce it.
 * Returns 0, -EPERM (BTRFS_IOC_ENCODED_READ needs CAP_SYS_ADMIN),
 * -EOPNOTSUPP (not btrfs, or a kernel without BTRFS_IOC_ENCODED_READ:
 * before 5.18), -ENOMEM, or the read's -errno.
 */
int levels_file(struct levels *lv, int fd, const struct stat *st);

/*
 * A report row opens: the extents of the files met until levels_pop()
 * are summed for it too, each once.  Returns 0 or -ENOMEM.
 */
int levels_push(struct levels *lv);

/* The innermost open row closes: its rows (*n of them, sorted as
 * levels_rows()'), to free(); NULL when none. */
struct report_level *levels_pop(struct levels *lv, size_t *n);

/* For report/progress.h, from any thread: the disk bytes of the extents
 * read so far (no total is known ahead). */
void levels_counts(void *lv, uint64_t *done, uint64_t *total,
		   int *total_known);

/* The rows for the report: by algorithm (zlib, zstd), then by lowest
 * level, the extents no level reproduces last; valid until the next
 * levels_file() or levels_free(). */
const struct report_level *levels_rows(struct levels *lv, size_t *n);

/*
 * For each algorithm with extents no level reproduced, one line on err
 * saying how many and which codec could not: another version of it (the
 * kernel's) wrote them, and their level is not told rather than guessed.
 */
void levels_note(struct levels *lv, FILE *err);

#endif
