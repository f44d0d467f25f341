// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs fault injection, per device, root only (mode 0200 files):
 *
 *   inject/ecc   "sram <uncorrected> [corrected]"
 *                "hbm<ch> <uncorrected> [corrected]"   ch < the HBM channel count
 *                "repair <none|pending|failed>"
 *       sets the MiscRAM ECC words the firmware would (16-bit counts,
 *       upper half corrected, lower half uncorrected) and the HBM repair
 *       state; the stats/hardware/ files read them back.
 *
 * Malformed input: -EINVAL and one dmesg line with the expected format.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": inject: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "neuron.h"
#include "neuron_compat.h"
#include "neuron_inject.h"
#include "neuron_parse.h"

#define MISC_SRAM_ECC		0x040
#define MISC_HBM_ECC(ch)	(0x044 + 4 * (ch))
#define MISC_HBM_REPAIR_STATE	0x064

static const char *const repair_states[] = { "none", "pending", "failed" };

static int inject_ecc_apply(struct neuron_device *nd, struct neuron_tokens *t)
{
	u32 unc, cor = 0, ch, off, state;
	const char *what;

	if (t->count < 2)
		return -EINVAL;
	what = t->tok[0];
	if (!strcmp(what, "repair")) {
		int s = neuron_parse_name(t->tok[1], repair_states, ARRAY_SIZE(repair_states));

		if (s < 0 || t->count != 2 || !nd->arch->has_repair_state)
			return -EINVAL;
		state = s;
		nd->ops->misc_write(nd, MISC_HBM_REPAIR_STATE, state);
		return 0;
	}
	if (t->count > 3)
		return -EINVAL;
	if (neuron_parse_u32_range(t->tok[1], 0, 0xffff, &unc))
		return -EINVAL;
	if (t->count == 3 && neuron_parse_u32_range(t->tok[2], 0, 0xffff, &cor))
		return -EINVAL;
	if (!strcmp(what, "sram")) {
		off = MISC_SRAM_ECC;
	} else if (!strncmp(what, "hbm", 3)) {
		if (neuron_parse_u32_range(what + 3, 0, nd->arch->hbm_channels - 1, &ch))
			return -EINVAL;
		off = MISC_HBM_ECC(ch);
	} else {
		return -EINVAL;
	}
	nd->ops->misc_write(nd, off, cor << 16 | unc);
	return 0;
}

static ssize_t inject_ecc_write(struct file *file, const char __user *ubuf, size_t len,
				loff_t *ppos)
{
	struct neuron_device *nd = file->private_data;
	struct neuron_tokens t;
	char buf[NEURON_PARSE_MAX_LEN];
	int ret;

	if (len > sizeof(buf)) {
		ret = -EINVAL;
		goto bad;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	ret = neuron_tokenize(&t, buf, len);
	if (!ret)
		ret = inject_ecc_apply(nd, &t);
	if (!ret)
		return len;
bad:
	dev_err(&nd->dev,
		"inject/ecc: expected \"sram|hbm<0..%u> <uncorrected 0..65535> [corrected 0..65535]\" or \"repair none|pending|failed\"\n",
		nd->arch->hbm_channels - 1);
	return ret;
}

static const struct file_operations inject_ecc_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_ecc_write,
	.llseek = neuron_no_llseek,
};

struct dentry *neuron_inject_init(struct neuron_device *nd)
{
	struct dentry *dir;

	dir = debugfs_create_dir("inject", nd->debugfs);
	debugfs_create_file("ecc", 0200, dir, nd, &inject_ecc_fops);
	return dir;
}
