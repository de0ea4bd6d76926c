/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --subvolumes: one report row per subvolume and snapshot of a whole
 * filesystem, mounted or not, each the files of its own tree (nested
 * subvolumes are rows of their own), listed with libbtrfsutil and read by
 * the fast scan.  Each row's exclusive bytes are the kernel's qgroup
 * figures (qgroup.h): what deleting that subvolume frees.  Subvolumes
 * deleted but not yet cleaned have a row too, without a path.
 */
#ifndef COMPSIZE_SUBVOLS_H
#define COMPSIZE_SUBVOLS_H

#include <sys/stat.h>
#include "report/rows.h"
#include "scan/qgroup.h"
#include "scan/usage.h"

/*
 * Add a row to rows for every subvolume of the btrfs filesystem of fd (st
 * its stat, already probed by usage_probe_fs()): the top level ("/")
 * first, then every other by its path from the top level
 * ("/home/.snapshots/1"), then those being deleted; q holds the
 * filesystem's qgroup figures.  tick(arg) as in fastscan_dir().  A
 * subvolume deleted once the listing met it is told to gone(arg, path),
 * which returns 0 or -ENOMEM: before it is read it has no row, while it
 * is read its row holds what was read; the others are listed and read on.
 * Returns 0, -EPERM without CAP_SYS_ADMIN, -ENOMEM, -EUCLEAN when
 * malformed items were skipped (the rows are complete otherwise), or
 * another -errno.
 */
int subvols_scan(struct usage_ctx *ctx, struct rows *rows, int fd,
		 const struct stat *st, const struct qgroup *q,
		 int (*tick)(void *), int (*gone)(void *, const char *),
		 void *arg);

#endif
