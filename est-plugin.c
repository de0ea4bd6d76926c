// SPDX-License-Identifier: GPL-2.0
/* The one symbol compsize-estimate.so exports: see est-plugin.h. */
#include "est-plugin.h"

__attribute__((visibility("default")))
const struct est_plugin compsize_est_plugin = {
	.abi = EST_PLUGIN_ABI,
	.result_size = sizeof(struct est_result),
	.version = COMPSIZE_VERSION,
	.create = est_create,
	.free = est_free,
	.files = est_files,
	.part = est_part,
	.nocompress_at = est_nocompress_at,
	.merge = est_merge,
	.get_result = est_get_result,
};
