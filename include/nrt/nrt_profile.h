/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Profiling (the subset this project implements), with the SDK's
 * signatures. The profile file format is docs/sdk-compat.md's "Profiling".
 */
#pragma once

#include <nrt/nrt.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Profile the executions of @model until nrt_profile_stop(); @filename is
 * where the profile will go. NRT_INVALID_HANDLE for a handle that is not a
 * live model, NRT_INVALID for a NULL or empty @filename, and the runtime
 * guard (13/14) as for nrt_execute().
 */
NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename);

/*
 * Stop profiling and save the profile to @filename. NRT_INVALID for a NULL
 * or empty @filename or when no profile was started.
 */
NRT_STATUS nrt_profile_stop(const char *filename);

#ifdef __cplusplus
}
#endif
