/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Symbol visibility for the C ABI. The library builds with
// -fvisibility=hidden; only functions marked NRT_EXPORT (and matched by
// libnrt.map) are visible in libnrt.so.1.
#pragma once

#define NRT_EXPORT extern "C" __attribute__((visibility("default")))
