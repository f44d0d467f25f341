// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics sysfs tree under /sys/devices/virtual/neuron_device/neuron<N>/,
 * with the vendor driver's names and paths:
 *
 *   info/{notify_delay,serial_number,fw_api_version}
 *   info/architecture/{arch_type,instance_type,device_name}
 *   stats/hardware/{sram_ecc_uncorrected,mem_ecc_uncorrected,
 *                   mem_ecc_repairable_uncorrected,sram_ecc_corrected,mem_ecc_corrected}
 *   stats/hardware/health_status/{unhealthy_components,healthcheck_heartbeat,
 *                   hw_error_events,sram_ecc_uncorrected,mem_ecc_uncorrected}
 *   stats/fw_io/{err_count,timeout_count}
 *   stats/memory_usage/..., neuron_core<K>/stats/memory_usage/... (neuron_memstat.c)
 *   stats/power/{utilization,utilization_raw} (neuron_power.c)
 *   neuron_core<K>/{health,health_reason} (neuron_health.c)
 *   neuron_core<K>/info/architecture/arch_type
 *   neuron_core<K>/stats/status/<24 counters>/{total,present}
 *   neuron_core<K>/stats/other_info/<6 counters>/{total,present}
 *   neuron_core<K>/stats/tensor_engine/pe_cntrs (PE activity counters)
 *
 * One ASCII value per file. Counter files are 0644: reading folds the live
 * NDS slabs first; writing anything (root only, by mode) clears that one
 * field. Every other file is read-only except info/notify_delay.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": sysfs: " fmt

#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_counters.h"
#include "neuron_fwio.h"
#include "neuron_health.h"
#include "neuron_hwerr.h"
#include "neuron_log.h"
#include "neuron_mem.h"
#include "neuron_miscram_reg.h"
#include "neuron_nds_priv.h"
#include "neuron_pe_counters.h"
#include "neuron_reset.h"
#include "neuron_power.h"
#include "neuron_main.h"
#include "neuron_sysfs.h"

/**
 * struct neuron_sysfs_node - one directory of the tree
 * @kobj:	the directory
 * @nd:		its device
 * @nc:		NeuronCore of a counter directory, -1 at device level
 * @id:		NDS counter id of a status counter directory
 * @other:	the other_info entry of an other_info counter directory
 * @kn_total:	the "total" file, for sysfs_notify (counter directories)
 * @kn_present:	the "present" file
 * @link:	in neuron_sysfs.nodes, creation order
 */
struct neuron_sysfs_node {
	struct kobject kobj;
	struct neuron_device *nd;
	s32 nc;
	u32 id;
	const struct neuron_other_attr *other;
	struct kernfs_node *kn_total;
	struct kernfs_node *kn_present;
	struct list_head link;
};

/**
 * struct neuron_sysfs - the tree of one device
 * @nodes:	every directory, parents before children; torn down in reverse
 * @notify:	info/notify_delay is 0: counter changes are sysfs_notify'd
 * @kn_hw_events: health_status/hw_error_events, for sysfs_notify
 */
struct neuron_sysfs {
	struct list_head nodes;
	bool notify;
	struct kernfs_node *kn_hw_events;
};

static inline struct neuron_sysfs_node *to_node(struct kobject *kobj)
{
	return container_of(kobj, struct neuron_sysfs_node, kobj);
}

static void neuron_sysfs_node_release(struct kobject *kobj)
{
	kfree(to_node(kobj));
}

/* ---- counter directories: total, present -------------------------------- */

static u64 counter_value(struct neuron_sysfs_node *n, bool total)
{
	u64 (*get)(struct neuron_device *nd, u32 nc, u32 id) =
		total ? neuron_nds_total : neuron_nds_present;

	if (!n->other)
		return get(n->nd, n->nc, n->id);
	if (n->other->counter == NEURON_COUNTER_DRIVER)
		return neuron_reset_counter(n->nd, n->nc, n->other->name, total, false);
	return (u64)n->other->scale * get(n->nd, n->nc, n->other->counter);
}

static ssize_t total_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", counter_value(to_node(kobj), true));
}

static ssize_t total_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct neuron_sysfs_node *n = to_node(kobj);

	if (n->other && n->other->counter == NEURON_COUNTER_DRIVER) {
		neuron_reset_counter(n->nd, n->nc, n->other->name, true, true);
		return count;
	}
	neuron_nds_clear_total(n->nd, n->nc, n->other ? n->other->counter : n->id);
	return count;
}

static ssize_t present_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", counter_value(to_node(kobj), false));
}

static ssize_t present_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct neuron_sysfs_node *n = to_node(kobj);

	if (n->other && n->other->counter == NEURON_COUNTER_DRIVER) {
		neuron_reset_counter(n->nd, n->nc, n->other->name, false, true);
		return count;
	}
	neuron_nds_clear_present(n->nd, n->nc, n->other ? n->other->counter : n->id);
	return count;
}

static struct kobj_attribute attr_total = __ATTR(total, 0644, total_show, total_store);
static struct kobj_attribute attr_present = __ATTR(present, 0644, present_show, present_store);

static struct attribute *counter_attrs[] = {
	&attr_total.attr,
	&attr_present.attr,
	NULL,
};
ATTRIBUTE_GROUPS(counter);

static const struct kobj_type counter_ktype = {
	.release = neuron_sysfs_node_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = counter_groups,
};

static const struct kobj_type dir_ktype = {
	.release = neuron_sysfs_node_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

/* ---- device-level files -------------------------------------------------- */

static ssize_t notify_delay_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_node(kobj)->nd->sysfs->notify ? 0 : -1);
}

static ssize_t notify_delay_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct neuron_device *nd = to_node(kobj)->nd;
	int v;

	if (kstrtoint(buf, 10, &v) || (v != 0 && v != -1)) {
		neuron_knob_dev_err(&nd->dev, "notify_delay: expected 0 (notify) or -1 (off)\n");
		return -EINVAL;
	}
	WRITE_ONCE(nd->sysfs->notify, v == 0);
	return count;
}

static ssize_t serial_number_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u64 serial;

	/* an unreadable or unset serial is an empty line, as documented */
	if (neuron_fwio_serial_number(to_node(kobj)->nd, &serial) || !serial)
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%016llx\n", serial);
}

static ssize_t fw_api_version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	u32 v;

	if (neuron_fwio_api_version(to_node(kobj)->nd, &v))
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%u\n", v);
}

static struct kobj_attribute attr_notify_delay = __ATTR_RW_MODE(notify_delay, 0644);
static struct kobj_attribute attr_serial_number = __ATTR_RO(serial_number);
static struct kobj_attribute attr_fw_api_version = __ATTR_RO(fw_api_version);

/*
 * With vendor_only, this driver's extra files are not created: the tree
 * is the vendor's (docs/vendor-abi.md).
 */
static umode_t nsys_ext_visible(struct kobject *kobj, struct attribute *attr, int n);

static struct attribute *info_attrs[] = {
	&attr_notify_delay.attr,
	&attr_serial_number.attr,
	&attr_fw_api_version.attr,
	NULL,
};
static const struct attribute_group info_group = {
	.attrs = info_attrs,
	.is_visible = nsys_ext_visible,
};

static ssize_t arch_type_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct neuron_sysfs_node *n = to_node(kobj);

	return sysfs_emit(buf, "%s\n", n->nc < 0 ? n->nd->arch->arch_type :
				       n->nd->arch->nc_arch_type);
}

static ssize_t instance_type_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_node(kobj)->nd->arch->instance_type);
}

static ssize_t device_name_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_node(kobj)->nd->arch->device_name);
}

static struct kobj_attribute attr_arch_type = __ATTR_RO(arch_type);
static struct kobj_attribute attr_instance_type = __ATTR_RO(instance_type);
static struct kobj_attribute attr_device_name = __ATTR_RO(device_name);

static struct attribute *arch_attrs[] = {
	&attr_arch_type.attr,
	&attr_instance_type.attr,
	&attr_device_name.attr,
	NULL,
};
static const struct attribute_group arch_group = { .attrs = arch_attrs };

static struct attribute *nc_arch_attrs[] = {
	&attr_arch_type.attr,
	NULL,
};
static const struct attribute_group nc_arch_group = { .attrs = nc_arch_attrs };

/* neuron_core<K>/health, health_reason: that NeuronCore's own health */
static ssize_t nc_health_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct neuron_sysfs_node *n = to_node(kobj);
	struct neuron_health h = neuron_health_get(n->nd, n->nc);

	return sysfs_emit(buf, "%s\n", neuron_health_state_name(h.state));
}

static ssize_t nc_health_reason_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	struct neuron_sysfs_node *n = to_node(kobj);
	struct neuron_health h = neuron_health_get(n->nd, n->nc);

	return sysfs_emit(buf, "%s\n", neuron_health_reason_name(h.reason));
}

static struct kobj_attribute attr_nc_health = __ATTR(health, 0444, nc_health_show, NULL);
static struct kobj_attribute attr_nc_health_reason =
	__ATTR(health_reason, 0444, nc_health_reason_show, NULL);

static struct attribute *nc_health_attrs[] = {
	&attr_nc_health.attr,
	&attr_nc_health_reason.attr,
	NULL,
};
static const struct attribute_group nc_health_group = {
	.attrs = nc_health_attrs,
	.is_visible = nsys_ext_visible,
};

/*
 * An unreadable word (0xDEADBEEF: firmware not ready; all-ones: the
 * function is gone) reads as "nothing counted", never as a count.
 */
static u32 misc_word(struct neuron_device *nd, u32 off)
{
	u32 v;

	return neuron_misc_value(nd, off, &v) ? v : 0;
}

static u64 hbm_ecc_sum(struct neuron_device *nd, bool corrected)
{
	u64 sum = 0;
	u32 ch;

	for (ch = 0; ch < nd->arch->hbm_channels && ch < NEURON_MISCRAM_HBM_CHANNELS; ch++) {
		u32 w = misc_word(nd, NEURON_MISCRAM_HBM_ECC(ch));

		sum += corrected ? neuron_miscram_ecc_corrected(w) :
				   neuron_miscram_ecc_uncorrected(w);
	}
	return sum;
}

static u32 hbm_repair_state(struct neuron_device *nd)
{
	return nd->arch->has_repair_state ?
	       misc_word(nd, NEURON_MISCRAM_REPAIR_STATE) & NEURON_MISCRAM_REPAIR_MASK :
	       NEURON_HBM_REPAIR_NONE;
}

static ssize_t sram_ecc_uncorrected_show(struct kobject *kobj, struct kobj_attribute *attr,
					 char *buf)
{
	u32 w = misc_word(to_node(kobj)->nd, NEURON_MISCRAM_SRAM_ECC);

	return sysfs_emit(buf, "%u\n", neuron_miscram_ecc_uncorrected(w));
}

static ssize_t sram_ecc_corrected_show(struct kobject *kobj, struct kobj_attribute *attr,
				       char *buf)
{
	u32 w = misc_word(to_node(kobj)->nd, NEURON_MISCRAM_SRAM_ECC);

	return sysfs_emit(buf, "%u\n", neuron_miscram_ecc_corrected(w));
}

/*
 * Uncorrected HBM errors that cannot be repaired: all of them when no
 * repair is pending (state 0, also legacy firmware) or the repair failed;
 * none while a repair is pending (they show as repairable instead).
 */
static ssize_t mem_ecc_uncorrected_show(struct kobject *kobj, struct kobj_attribute *attr,
					char *buf)
{
	struct neuron_device *nd = to_node(kobj)->nd;
	u32 state = hbm_repair_state(nd);
	u64 sum = hbm_ecc_sum(nd, false);

	return sysfs_emit(buf, "%llu\n", state == NEURON_HBM_REPAIR_PENDING ? 0 : sum);
}

static ssize_t mem_ecc_repairable_uncorrected_show(struct kobject *kobj,
						   struct kobj_attribute *attr, char *buf)
{
	struct neuron_device *nd = to_node(kobj)->nd;

	return sysfs_emit(buf, "%llu\n", hbm_repair_state(nd) == NEURON_HBM_REPAIR_PENDING ?
					 hbm_ecc_sum(nd, false) : 0);
}

static ssize_t mem_ecc_corrected_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	return sysfs_emit(buf, "%llu\n", hbm_ecc_sum(to_node(kobj)->nd, true));
}

static struct kobj_attribute attr_sram_ecc_uncorrected = __ATTR_RO(sram_ecc_uncorrected);
static struct kobj_attribute attr_sram_ecc_corrected = __ATTR_RO(sram_ecc_corrected);
static struct kobj_attribute attr_mem_ecc_uncorrected = __ATTR_RO(mem_ecc_uncorrected);
static struct kobj_attribute attr_mem_ecc_repairable_uncorrected =
	__ATTR_RO(mem_ecc_repairable_uncorrected);
static struct kobj_attribute attr_mem_ecc_corrected = __ATTR_RO(mem_ecc_corrected);

static struct attribute *hardware_attrs[] = {
	&attr_sram_ecc_uncorrected.attr,
	&attr_mem_ecc_uncorrected.attr,
	&attr_mem_ecc_repairable_uncorrected.attr,
	&attr_sram_ecc_corrected.attr,
	&attr_mem_ecc_corrected.attr,
	NULL,
};
/* the corrected counts too: the vendor's since driver 2.30.2 */
static const struct attribute_group hardware_group = {
	.attrs = hardware_attrs,
};

/*
 * stats/hardware/health_status/ (the vendor's since driver 2.28/2.30):
 * what the driver already knows, read at each read, stored nowhere else:
 * the components unhealthy now, the health checks run, the ECC counts as
 * the poller last read them, and the NEURON_HW_ERR events so far (with
 * sysfs_notify on each).
 */
static ssize_t unhealthy_components_show(struct kobject *kobj, struct kobj_attribute *attr,
					 char *buf)
{
	u32 bits = neuron_health_components_now(to_node(kobj)->nd);
	ssize_t n = 0;
	u32 c;

	for (c = 0; c < NEURON_COMPONENT_COUNT; c++)
		if (bits & BIT(c))
			n += sysfs_emit_at(buf, n, "%s%s", n ? " " : "", neuron_component_names[c]);
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t healthcheck_heartbeat_show(struct kobject *kobj, struct kobj_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_health_heartbeat(to_node(kobj)->nd));
}

static ssize_t hw_error_events_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_hwerr_events(to_node(kobj)->nd));
}

static ssize_t cached_ecc_show(struct kobject *kobj, char *buf, bool sram)
{
	u32 s = 0;
	u64 h = 0;

	neuron_hwerr_cached_ecc(to_node(kobj)->nd, &s, &h);
	return sysfs_emit(buf, "%llu\n", sram ? (u64)s : h);
}

static ssize_t cached_sram_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return cached_ecc_show(kobj, buf, true);
}

static ssize_t cached_mem_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return cached_ecc_show(kobj, buf, false);
}

static struct kobj_attribute attr_unhealthy_components = __ATTR_RO(unhealthy_components);
static struct kobj_attribute attr_healthcheck_heartbeat = __ATTR_RO(healthcheck_heartbeat);
static struct kobj_attribute attr_hw_error_events = __ATTR_RO(hw_error_events);
static struct kobj_attribute attr_cached_sram =
	__ATTR(sram_ecc_uncorrected, 0444, cached_sram_show, NULL);
static struct kobj_attribute attr_cached_mem =
	__ATTR(mem_ecc_uncorrected, 0444, cached_mem_show, NULL);

static struct attribute *health_status_attrs[] = {
	&attr_unhealthy_components.attr,
	&attr_healthcheck_heartbeat.attr,
	&attr_hw_error_events.attr,
	&attr_cached_sram.attr,
	&attr_cached_mem.attr,
	NULL,
};
static const struct attribute_group health_status_group = { .attrs = health_status_attrs };

/* the files of this driver only (hidden with vendor_only) */
static const struct attribute *const nsys_ext_attrs[] = {
	&attr_fw_api_version.attr,
	&attr_nc_health.attr,
	&attr_nc_health_reason.attr,
};

static umode_t nsys_ext_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	size_t i;

	if (neuron_vendor_only())
		for (i = 0; i < ARRAY_SIZE(nsys_ext_attrs); i++)
			if (attr == nsys_ext_attrs[i])
				return 0;
	return attr->mode;
}

static ssize_t err_count_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_fwio_err_count(to_node(kobj)->nd));
}

static ssize_t timeout_count_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_fwio_timeout_count(to_node(kobj)->nd));
}

static struct kobj_attribute attr_err_count = __ATTR_RO(err_count);
static struct kobj_attribute attr_timeout_count = __ATTR_RO(timeout_count);

static struct attribute *fw_io_attrs[] = {
	&attr_err_count.attr,
	&attr_timeout_count.attr,
	NULL,
};
static const struct attribute_group fw_io_group = { .attrs = fw_io_attrs };

static ssize_t utilization_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return neuron_power_show(to_node(kobj)->nd, buf);
}

static ssize_t utilization_raw_show(struct kobject *kobj, struct kobj_attribute *attr,
				    char *buf)
{
	return neuron_power_raw_show(to_node(kobj)->nd, buf);
}

static struct kobj_attribute attr_utilization = __ATTR_RO(utilization);
static struct kobj_attribute attr_utilization_raw = __ATTR_RO(utilization_raw);

static struct attribute *power_attrs[] = {
	&attr_utilization.attr,
	&attr_utilization_raw.attr,
	NULL,
};
static const struct attribute_group power_group = { .attrs = power_attrs };

/*
 * neuron_core<K>/stats/tensor_engine/pe_cntrs, the vendor's file: the PE
 * array's activity per row group, read from the device at each read
 * (common/neuron_pe_counters.h); a simulated device counts none (0).
 */
static int pe_read_word(void *ctx, u64 off, u32 *val)
{
	struct neuron_device *nd = ctx;

	return nd->ops->pe_read32(nd->backend, off, val);
}

static ssize_t pe_cntrs_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct neuron_sysfs_node *n = to_node(kobj);
	struct neuron_device *nd = n->nd;
	u64 v[NEURON_PE_ROW_GROUPS][NEURON_PE_FIELDS] = { { 0 } };
	int len, ret = 0;
	u32 rg;

	if (nd->ops->pe_read32)
		ret = neuron_pe_read(neuron_pe_layout_of(nd->arch->fw_arch), n->nc, pe_read_word,
				     nd, v);
	if (ret)
		return ret;
	len = sysfs_emit(buf, "xrow_grp,mm_active,wl_active,idle\n");
	for (rg = 0; rg < NEURON_PE_ROW_GROUPS; rg++)
		len += sysfs_emit_at(buf, len, "%u,%llu,%llu,%llu\n", rg, v[rg][NEURON_PE_MM],
				     v[rg][NEURON_PE_WL], v[rg][NEURON_PE_IDLE]);
	return len;
}

static struct kobj_attribute attr_pe_cntrs = __ATTR_RO(pe_cntrs);

static struct attribute *tensor_engine_attrs[] = {
	&attr_pe_cntrs.attr,
	NULL,
};
static const struct attribute_group tensor_engine_group = { .attrs = tensor_engine_attrs };

/* NeuronCore @nc has PE counters: the device's layout has it, or it is simulated */
static bool nsys_has_pe(struct neuron_device *nd, u32 nc)
{
	const struct neuron_pe_layout *l = neuron_pe_layout_of(nd->arch->fw_arch);

	if (!nd->ops->pe_read32)
		return nd->ops->simulated;
	return l && nc < l->nc_count;
}

/* ---- construction -------------------------------------------------------- */

static struct neuron_sysfs_node *
nsys_add(struct neuron_device *nd, struct kobject *parent, const char *name, s32 nc,
	 const struct kobj_type *ktype, const struct attribute_group *group)
{
	struct neuron_sysfs_node *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->nd = nd;
	n->nc = nc;
	ret = neuron_kobject_init_and_add(&n->kobj, ktype, parent, name);
	if (ret) {
		kobject_put(&n->kobj);
		return ERR_PTR(ret);
	}
	list_add_tail(&n->link, &nd->sysfs->nodes);
	if (group) {
		ret = sysfs_create_group(&n->kobj, group);
		if (ret)
			return ERR_PTR(ret);	/* the node is on the list: torn down by the caller */
	}
	return n;
}

static int nsys_add_counter(struct neuron_device *nd, struct kobject *parent, u32 nc,
			    const char *name, u32 id, const struct neuron_other_attr *other)
{
	struct neuron_sysfs_node *n;

	n = nsys_add(nd, parent, name, nc, &counter_ktype, NULL);
	if (IS_ERR(n))
		return PTR_ERR(n);
	n->id = id;
	n->other = other;
	n->kn_total = sysfs_get_dirent(n->kobj.sd, "total");
	n->kn_present = sysfs_get_dirent(n->kobj.sd, "present");
	return 0;
}

/*
 * Every directory of a device's tree, by parent and name, in creation
 * order: the one place a path is spelled, so that moving a node is a
 * change of this table. The NSYS_CORE.. block is made once per NeuronCore
 * (its root named neuron_core<K>). @group: the files of the directory;
 * @flags: NSYS_EXT, this driver's own (not with vendor_only); NSYS_PE,
 * only on a NeuronCore with PE counters; @fill: what goes in besides the
 * group (counter directories, the memory_usage tree of neuron_memstat.c,
 * the notify handle of hw_error_events). The device's own files (health,
 * reset, state, ...) are its attribute groups (neuron_device.c).
 */
enum nsys_dir {
	NSYS_INFO,
	NSYS_INFO_ARCH,
	NSYS_STATS,
	NSYS_HARDWARE,
	NSYS_HEALTH_STATUS,
	NSYS_FW_IO,
	NSYS_CORE,
	NSYS_CORE_INFO,
	NSYS_CORE_ARCH,
	NSYS_CORE_STATS,
	NSYS_CORE_STATUS,
	NSYS_CORE_TENSOR_ENGINE,
	NSYS_CORE_OTHER_INFO,
	NSYS_POWER,
	NSYS_DIRS,
	NSYS_DEVICE = -1,	/* the device's own directory: a parent only */
};

#define NSYS_EXT	BIT(0)
#define NSYS_PE		BIT(1)

enum nsys_fill {
	NSYS_FILL_NONE,
	NSYS_FILL_MEMSTAT_ROOT,
	NSYS_FILL_MEMSTAT_CORE,
	NSYS_FILL_STATUS_COUNTERS,
	NSYS_FILL_OTHER_COUNTERS,
	NSYS_FILL_HW_EVENTS,
};

static const struct nsys_dir_desc {
	const char *name;
	s8 parent;
	u8 flags;
	u8 fill;
	const struct attribute_group *group;
} nsys_dirs[NSYS_DIRS] = {
	[NSYS_INFO] = { "info", NSYS_DEVICE, 0, NSYS_FILL_NONE, &info_group },
	[NSYS_INFO_ARCH] = { "architecture", NSYS_INFO, 0, NSYS_FILL_NONE, &arch_group },
	[NSYS_STATS] = { "stats", NSYS_DEVICE, 0, NSYS_FILL_MEMSTAT_ROOT, NULL },
	[NSYS_HARDWARE] = { "hardware", NSYS_STATS, 0, NSYS_FILL_NONE, &hardware_group },
	[NSYS_HEALTH_STATUS] = { "health_status", NSYS_HARDWARE, 0, NSYS_FILL_HW_EVENTS,
				 &health_status_group },
	[NSYS_FW_IO] = { "fw_io", NSYS_STATS, NSYS_EXT, NSYS_FILL_NONE, &fw_io_group },
	[NSYS_CORE] = { "neuron_core%u", NSYS_DEVICE, 0, NSYS_FILL_NONE, &nc_health_group },
	[NSYS_CORE_INFO] = { "info", NSYS_CORE, 0, NSYS_FILL_NONE, NULL },
	[NSYS_CORE_ARCH] = { "architecture", NSYS_CORE_INFO, 0, NSYS_FILL_NONE, &nc_arch_group },
	[NSYS_CORE_STATS] = { "stats", NSYS_CORE, 0, NSYS_FILL_MEMSTAT_CORE, NULL },
	[NSYS_CORE_STATUS] = { "status", NSYS_CORE_STATS, 0, NSYS_FILL_STATUS_COUNTERS, NULL },
	[NSYS_CORE_TENSOR_ENGINE] = { "tensor_engine", NSYS_CORE_STATS, NSYS_PE, NSYS_FILL_NONE,
				      &tensor_engine_group },
	[NSYS_CORE_OTHER_INFO] = { "other_info", NSYS_CORE_STATS, 0, NSYS_FILL_OTHER_COUNTERS,
				   NULL },
	/* last, after the cores, as the vendor's tree */
	[NSYS_POWER] = { "power", NSYS_STATS, 0, NSYS_FILL_NONE, &power_group },
};

static bool nsys_per_core(int d)
{
	return d >= NSYS_CORE && d <= NSYS_CORE_OTHER_INFO;
}

/* What @fill puts into the new directory @n (NeuronCore @nc, or -1). */
static int nsys_fill(struct neuron_device *nd, struct neuron_sysfs_node *n, s32 nc, u8 fill)
{
	u32 i;
	int ret;

	switch (fill) {
	case NSYS_FILL_MEMSTAT_ROOT:
		return neuron_memstat_sysfs_root(nd, &n->kobj);
	case NSYS_FILL_MEMSTAT_CORE:
		return neuron_memstat_sysfs_core(nd, nc, &n->kobj);
	case NSYS_FILL_STATUS_COUNTERS:
		for (i = 0; i < neuron_status_attr_count(); i++) {
			ret = nsys_add_counter(nd, &n->kobj, nc, neuron_status_attrs[i].name,
					       neuron_status_attrs[i].counter, NULL);
			if (ret)
				return ret;
		}
		return 0;
	case NSYS_FILL_OTHER_COUNTERS:
		for (i = 0; i < neuron_other_attr_count(); i++) {
			ret = nsys_add_counter(nd, &n->kobj, nc, neuron_other_attrs[i].name, 0,
					       &neuron_other_attrs[i]);
			if (ret)
				return ret;
		}
		return 0;
	case NSYS_FILL_HW_EVENTS:
		nd->sysfs->kn_hw_events = sysfs_get_dirent(n->kobj.sd, "hw_error_events");
		return 0;
	default:
		return 0;
	}
}

/*
 * Directory @d of the table (of NeuronCore @nc for a per-core one), under
 * the one made for its parent in @made; skipped (NULL in @made) when its
 * flags rule it out here, or its parent was.
 */
static int nsys_make(struct neuron_device *nd, int d, s32 nc,
		     struct neuron_sysfs_node *made[NSYS_DIRS])
{
	const struct nsys_dir_desc *e = &nsys_dirs[d];
	struct kobject *parent;
	struct neuron_sysfs_node *n;
	char name[32];

	made[d] = NULL;
	if ((e->flags & NSYS_EXT) && neuron_vendor_only())
		return 0;
	if ((e->flags & NSYS_PE) && !nsys_has_pe(nd, nc))
		return 0;
	if (e->parent == NSYS_DEVICE)
		parent = &nd->dev.kobj;
	else if (made[e->parent])
		parent = &made[e->parent]->kobj;
	else
		return 0;
	if (d == NSYS_CORE)
		snprintf(name, sizeof(name), e->name, nc);
	else
		strscpy(name, e->name, sizeof(name));
	n = nsys_add(nd, parent, name, nc, &dir_ktype, e->group);
	if (IS_ERR(n))
		return PTR_ERR(n);
	made[d] = n;
	return nsys_fill(nd, n, nc, e->fill);
}

int neuron_sysfs_init(struct neuron_device *nd)
{
	struct neuron_sysfs_node *made[NSYS_DIRS];
	int d, c, ret = 0;
	u32 nc;

	nd->sysfs = kzalloc(sizeof(*nd->sysfs), GFP_KERNEL);
	if (!nd->sysfs)
		return -ENOMEM;
	INIT_LIST_HEAD(&nd->sysfs->nodes);

	for (d = 0; d < NSYS_DIRS && !ret; d++) {
		if (!nsys_per_core(d)) {
			ret = nsys_make(nd, d, -1, made);
			continue;
		}
		/* the per-core block, once for each NeuronCore */
		for (nc = 0; nc < nd->nc_count && !ret; nc++)
			for (c = d; nsys_per_core(c) && !ret; c++)
				ret = nsys_make(nd, c, nc, made);
		while (nsys_per_core(d + 1))
			d++;
	}
	if (ret)
		goto err;
	ret = neuron_device_create_fault(nd, NEURON_CREATE_STEP_SYSFS);
	if (ret)
		goto err;
	return 0;

err:
	/*
	 * The tree stays: the node is open to processes, whose counter
	 * updates walk it until the device is marked gone. The caller marks
	 * it gone, then calls neuron_sysfs_exit().
	 */
	dev_err(&nd->dev, "cannot create the sysfs tree: %d\n", ret);
	return ret;
}

void neuron_sysfs_exit(struct neuron_device *nd)
{
	struct neuron_sysfs_node *n, *tmp;

	if (!nd->sysfs)
		return;
	/* the memory_usage trees live under our directories: first */
	neuron_memstat_sysfs_exit(nd);
	/* children were added after their parents: remove in reverse */
	list_for_each_entry_safe_reverse(n, tmp, &nd->sysfs->nodes, link) {
		list_del(&n->link);
		sysfs_put(n->kn_total);
		sysfs_put(n->kn_present);
		kobject_del(&n->kobj);
		kobject_put(&n->kobj);
	}
	sysfs_put(nd->sysfs->kn_hw_events);
	kfree(nd->sysfs);
	nd->sysfs = NULL;
}

void neuron_sysfs_hw_events_changed(struct neuron_device *nd)
{
	/*
	 * Every caller comes before neuron_sysfs_exit(): an ioctl or the
	 * reset file under gone_sem with the device not gone, or the ECC
	 * poller, stopped before the tree goes. kernfs_notify is safe in
	 * any context.
	 */
	if (nd->sysfs && nd->sysfs->kn_hw_events)
		kernfs_notify(nd->sysfs->kn_hw_events);
}

void neuron_sysfs_counters_changed_locked(struct neuron_device *nd)
{
	struct neuron_sysfs_node *n;

	lockdep_assert_held(&nd->gone_sem);
	/* the tree goes away after @gone is set (neuron_device_destroy) */
	if (nd->gone || !nd->sysfs || !READ_ONCE(nd->sysfs->notify))
		return;
	/*
	 * kernfs_notify is safe in any context and takes no lock a show
	 * callback holds, so this never deadlocks with a reader.
	 */
	list_for_each_entry(n, &nd->sysfs->nodes, link) {
		if (n->kn_total)
			kernfs_notify(n->kn_total);
		if (n->kn_present)
			kernfs_notify(n->kn_present);
	}
}

void neuron_sysfs_counters_changed(struct neuron_device *nd)
{
	down_read(&nd->gone_sem);
	neuron_sysfs_counters_changed_locked(nd);
	up_read(&nd->gone_sem);
}
