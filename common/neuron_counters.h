/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The NDS NeuronCore counters as the outside world sees them: the sysfs
 * attributes under neuron_coreK/stats/{status,other_info}/ that show them
 * and the CloudWatch metric ids they are posted as. Pure data, shared by
 * the module's sysfs code and libnrt (nrt-status).
 *
 * Counter ids are those of <neuron/neuron_nds.h>: NC ids 0..30, EXT ids
 * 31..40.
 */
#ifndef NEURON_COUNTERS_H
#define NEURON_COUNTERS_H

#include "neuron_pure.h"

/* Named NC + EXT counter ids: 0..40. */
#define NEURON_NC_COUNTER_NAMED		41
#define NEURON_STATUS_ATTR_COUNT	24
#define NEURON_OTHER_ATTR_COUNT		6
/* neuron_other_attr.counter of an attribute the driver itself maintains. */
#define NEURON_COUNTER_DRIVER		(-1)
#define NEURON_CW_ID_NONE		(-1)

/* One file under neuron_coreK/stats/status/ (a total/present pair). */
struct neuron_status_attr {
	const char *name;
	u32 counter;		/* NDS NC/EXT counter id */
	u32 cw_id;		/* CloudWatch metric id it is posted as */
};

/* One file under neuron_coreK/stats/other_info/. */
struct neuron_other_attr {
	const char *name;
	s32 counter;		/* NDS NC counter id, or NEURON_COUNTER_DRIVER */
	u32 scale;		/* the file shows scale x counter */
};

/* In creation order, which is the order userspace lists them. */
extern const struct neuron_status_attr neuron_status_attrs[NEURON_STATUS_ATTR_COUNT];
extern const struct neuron_other_attr neuron_other_attrs[NEURON_OTHER_ATTR_COUNT];

u32 neuron_status_attr_count(void);
/* NULL when @id / @name has no status attribute. */
const struct neuron_status_attr *neuron_status_attr_by_counter(u32 id);
const struct neuron_status_attr *neuron_status_attr_by_name(const char *name);

u32 neuron_other_attr_count(void);
/* NULL when nothing matches; driver-maintained entries have no counter. */
const struct neuron_other_attr *neuron_other_attr_by_counter(u32 id);
const struct neuron_other_attr *neuron_other_attr_by_name(const char *name);

/* "INFER_COMPLETED", "HW_ERR_NC_UE", ...; NULL past id 40. */
const char *neuron_nc_counter_name(u32 id);
/* CloudWatch id of counter @id, or NEURON_CW_ID_NONE. */
s32 neuron_nc_counter_cw_id(u32 id);

#endif /* NEURON_COUNTERS_H */
