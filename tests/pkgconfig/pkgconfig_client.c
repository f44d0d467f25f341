// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An external program built against an installed libnrt, found only through
 * pkg-config (see Makefile here): proof that the installed headers are
 * self-contained, that -lnrt resolves to libnrt.so.1 and that the symbols it
 * binds to carry the NRT_1.0 version.
 *
 * It prints one "key value..." line per fact, for tests/vm/90_pkgconfig.sh
 * and scripts/test-packaging.sh to compare:
 *   libnrt <version>
 *   status <code> <name>
 *   devices <count>
 *   device <index> nc <count> driver <version>      (one per device)
 * and exits 0 when every call succeeded, 1 otherwise (saying which on stderr).
 */
#include <stdio.h>
#include <string.h>

#include <ndl/ndl.h>
#include <nrt/nrt.h>
#include <nrt/nrt_status.h>

int main(void)
{
	int idx[MAX_NEURON_DEVICE_COUNT];
	int failed = 0;
	int n, i;

	printf("libnrt %s\n", nrt_get_version_string());
	printf("status %d %s\n", (int)NRT_EXEC_SW_NQ_OVERFLOW,
	       nrt_get_status_as_str(NRT_EXEC_SW_NQ_OVERFLOW));

	n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	if (n < 0) {
		fprintf(stderr, "ndl_available_devices: %s\n", strerror(-n));
		return 1;
	}
	printf("devices %d\n", n);
	for (i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		ndl_device_t *dev = NULL;
		int ret = ndl_open_device(idx[i], NULL, &dev);

		if (ret != 0) {
			fprintf(stderr, "ndl_open_device(%d): %s\n", idx[i], strerror(-ret));
			failed = 1;
			continue;
		}
		printf("device %u nc %u driver %s\n", (unsigned)dev->device_index,
		       (unsigned)ndl_device_get_info(dev)->nc_count, ndl_device_get_info(dev)->driver_version);
		ret = ndl_close_device(dev);
		if (ret != 0) {
			fprintf(stderr, "ndl_close_device(%d): %s\n", idx[i], strerror(-ret));
			failed = 1;
		}
	}
	return failed;
}
