/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Profiling (the subset this project implements), with the SDK's
 * signatures. The profile file format and the rules are
 * docs/sdk-compat.md's "Profiling".
 */
#pragma once

#include <nrt/nrt.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Record every execution of @model (each nrt_execute and each repetition
 * of nrt_execute_repeat, from any thread: start and end time, NeuronCore,
 * the NRT_STATUS returned, the error entries drained) until
 * nrt_profile_stop(). One profile per process. NRT_INVALID_HANDLE for a
 * handle that is not a live model; NRT_INVALID for a NULL or empty
 * @filename or while a profile is running; the runtime guard (13/14) as
 * for nrt_execute().
 */
NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename);

/*
 * Write what was recorded to @filename, atomically, in the Chrome trace
 * event JSON format (Perfetto, chrome://tracing; not the SDK's NTFF), and
 * end the profile. Works after the model was unloaded and after
 * nrt_close(). NRT_INVALID for a NULL or empty @filename or when no
 * profile is running; when the file cannot be written, NRT_INVALID (bad
 * path), NRT_RESOURCE (out of space, memory or descriptors) or NRT_FAILURE,
 * and the profile keeps running. docs/sdk-compat.md, "Profiling".
 */
NRT_STATUS nrt_profile_stop(const char *filename);

#ifdef __cplusplus
}
#endif
