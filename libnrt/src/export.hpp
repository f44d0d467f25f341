/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// Symbol visibility for the C ABI. The library builds with
// -fvisibility=hidden; only functions marked NRT_EXPORT (and matched by
// libnrt.map) are visible in libnrt.so.1.
#pragma once

#define NRT_EXPORT extern "C" __attribute__((visibility("default")))

// The execution path's own functions, gathered at the start of one page
// of libnrt's text (libnrt/hot.ld). Under an emulated CPU (QEMU's TCG) a
// jump whose target is on another page than the translated block it
// leaves cannot be chained to it: each such jump goes through the
// emulator's block look-up, about as dear as two atomic adds
// (docs/performance.md, "Pages of code"). Keep what is listed here
// small: together it must fit in one page (scripts/hot-text.sh checks
// it in make check).
#define NRT_HOT_PATH __attribute__((section(".text.nrt_hot")))
