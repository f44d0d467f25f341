/*
 * libnrt public API (the subset this project implements).
 */
#pragma once

#include <stdint.h>
#include <stddef.h>
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libnrt's version string, e.g. "0.1.0". */
const char *nrt_get_version_string(void);

#ifdef __cplusplus
}
#endif
