// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints the layout of every UAPI struct: one line per struct
 * ("S <name> <size> <align>") and per member ("F <struct>.<member> <offset>
 * <size>"). scripts/uapi-layout.sh builds it with -m32 and -m64 and requires
 * identical output, and sizes that are multiples of 8, so 32-bit processes
 * on a 64-bit kernel see the same ABI.
 */
#include <stddef.h>
#include <stdio.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>

#define S(t) printf("S %s %zu %zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define F(t, m) printf("F %s.%s %zu %zu\n", #t, #m, offsetof(struct t, m), sizeof(((struct t *)0)->m))

int main(void)
{
	S(neuron_info);
	F(neuron_info, size); F(neuron_info, flags); F(neuron_info, abi_version);
	F(neuron_info, device_index); F(neuron_info, nc_count); F(neuron_info, backend);
	F(neuron_info, capabilities); F(neuron_info, driver_version); F(neuron_info, hbm_size);
	F(neuron_info, reserved);

	S(neuron_nds_acquire);
	F(neuron_nds_acquire, size); F(neuron_nds_acquire, flags); F(neuron_nds_acquire, pid);
	F(neuron_nds_acquire, slot); F(neuron_nds_acquire, mmap_offset);
	F(neuron_nds_acquire, mmap_size); F(neuron_nds_acquire, access);
	F(neuron_nds_acquire, reserved0); F(neuron_nds_acquire, reserved);

	S(neuron_nds_counter_add);
	F(neuron_nds_counter_add, size); F(neuron_nds_counter_add, flags);
	F(neuron_nds_counter_add, nc); F(neuron_nds_counter_add, id);
	F(neuron_nds_counter_add, delta); F(neuron_nds_counter_add, reserved);

	S(neuron_nq_init);
	F(neuron_nq_init, size); F(neuron_nq_init, flags); F(neuron_nq_init, nc);
	F(neuron_nq_init, nq_type); F(neuron_nq_init, engine); F(neuron_nq_init, ring_size);
	F(neuron_nq_init, mmap_offset); F(neuron_nq_init, mmap_size); F(neuron_nq_init, reserved);

	S(neuron_nq_release);
	F(neuron_nq_release, size); F(neuron_nq_release, flags); F(neuron_nq_release, nc);
	F(neuron_nq_release, nq_type); F(neuron_nq_release, engine);
	F(neuron_nq_release, reserved0); F(neuron_nq_release, reserved);

	S(neuron_core_reserve);
	F(neuron_core_reserve, size); F(neuron_core_reserve, flags); F(neuron_core_reserve, nc);
	F(neuron_core_reserve, reserved0); F(neuron_core_reserve, reserved);

	S(neuron_sim_exec);
	F(neuron_sim_exec, size); F(neuron_sim_exec, flags); F(neuron_sim_exec, nc);
	F(neuron_sim_exec, reserved0); F(neuron_sim_exec, duration_us);
	F(neuron_sim_exec, timeout_us); F(neuron_sim_exec, entries); F(neuron_sim_exec, dropped);
	F(neuron_sim_exec, job_ns);
	F(neuron_sim_exec, reserved);

	S(neuron_fw_read);
	F(neuron_fw_read, size); F(neuron_fw_read, flags); F(neuron_fw_read, count);
	F(neuron_fw_read, reserved0); F(neuron_fw_read, addr); F(neuron_fw_read, value);
	F(neuron_fw_read, reserved);

	S(neuron_fw_power_profile);
	F(neuron_fw_power_profile, size); F(neuron_fw_power_profile, flags);
	F(neuron_fw_power_profile, profile); F(neuron_fw_power_profile, reserved0);
	F(neuron_fw_power_profile, reserved);

	S(neuron_nq_entry);
	F(neuron_nq_entry, error_id); F(neuron_nq_entry, metadata_lo); F(neuron_nq_entry, header);
	F(neuron_nq_entry, metadata_hi); F(neuron_nq_entry, timestamp_ps);

	S(neuron_nq_ctrl);
	F(neuron_nq_ctrl, head); F(neuron_nq_ctrl, pad0); F(neuron_nq_ctrl, tail);
	F(neuron_nq_ctrl, entries); F(neuron_nq_ctrl, dropped); F(neuron_nq_ctrl, written);
	F(neuron_nq_ctrl, reserved);

	S(neuron_mem_alloc);
	F(neuron_mem_alloc, size); F(neuron_mem_alloc, flags); F(neuron_mem_alloc, nc);
	F(neuron_mem_alloc, location); F(neuron_mem_alloc, category);
	F(neuron_mem_alloc, reserved0); F(neuron_mem_alloc, bytes); F(neuron_mem_alloc, handle);
	F(neuron_mem_alloc, device_addr); F(neuron_mem_alloc, reserved);

	S(neuron_mem_free);
	F(neuron_mem_free, size); F(neuron_mem_free, flags); F(neuron_mem_free, handle);
	F(neuron_mem_free, reserved);

	S(neuron_mem_rw);
	F(neuron_mem_rw, size); F(neuron_mem_rw, flags); F(neuron_mem_rw, handle);
	F(neuron_mem_rw, offset); F(neuron_mem_rw, bytes); F(neuron_mem_rw, user_ptr);
	F(neuron_mem_rw, value); F(neuron_mem_rw, reserved0); F(neuron_mem_rw, reserved);

	S(neuron_sim_exec_model);
	F(neuron_sim_exec_model, size); F(neuron_sim_exec_model, flags);
	F(neuron_sim_exec_model, nc); F(neuron_sim_exec_model, op);
	F(neuron_sim_exec_model, duration_us); F(neuron_sim_exec_model, timeout_us);
	F(neuron_sim_exec_model, in_handle); F(neuron_sim_exec_model, out_handle);
	F(neuron_sim_exec_model, in_offset); F(neuron_sim_exec_model, out_offset);
	F(neuron_sim_exec_model, bytes); F(neuron_sim_exec_model, arg0);
	F(neuron_sim_exec_model, arg1); F(neuron_sim_exec_model, entries);
	F(neuron_sim_exec_model, dropped); F(neuron_sim_exec_model, job_ns);
	F(neuron_sim_exec_model, reserved);

	S(neuron_app_entry);
	F(neuron_app_entry, pid); F(neuron_app_entry, nc_map); F(neuron_app_entry, reserved);

	S(neuron_apps_info);
	F(neuron_apps_info, size); F(neuron_apps_info, flags); F(neuron_apps_info, start);
	F(neuron_apps_info, count); F(neuron_apps_info, total); F(neuron_apps_info, reserved0);
	F(neuron_apps_info, reserved); F(neuron_apps_info, app);

	S(neuron_core_holders);
	F(neuron_core_holders, size); F(neuron_core_holders, flags); F(neuron_core_holders, nc);
	F(neuron_core_holders, state); F(neuron_core_holders, owner_pid);
	F(neuron_core_holders, owner_flags); F(neuron_core_holders, since_ns);
	F(neuron_core_holders, count); F(neuron_core_holders, total);
	F(neuron_core_holders, hidden); F(neuron_core_holders, reserved0);
	F(neuron_core_holders, reserved); F(neuron_core_holders, pid);

	/* the ioctl numbers encode the sizes: they must match too */
	printf("C GET_INFO 0x%08lx\n", (unsigned long)NEURON_IOCTL_GET_INFO);
	printf("C NDS_ACQUIRE 0x%08lx\n", (unsigned long)NEURON_IOCTL_NDS_ACQUIRE);
	printf("C NDS_COUNTER_ADD 0x%08lx\n", (unsigned long)NEURON_IOCTL_NDS_COUNTER_ADD);
	printf("C NQ_INIT 0x%08lx\n", (unsigned long)NEURON_IOCTL_NQ_INIT);
	printf("C NQ_RELEASE 0x%08lx\n", (unsigned long)NEURON_IOCTL_NQ_RELEASE);
	printf("C CORE_RESERVE 0x%08lx\n", (unsigned long)NEURON_IOCTL_CORE_RESERVE);
	printf("C CORE_RELEASE 0x%08lx\n", (unsigned long)NEURON_IOCTL_CORE_RELEASE);
	printf("C SIM_EXEC 0x%08lx\n", (unsigned long)NEURON_IOCTL_SIM_EXEC);
	printf("C FW_READ 0x%08lx\n", (unsigned long)NEURON_IOCTL_FW_READ);
	printf("C FW_POWER_PROFILE 0x%08lx\n", (unsigned long)NEURON_IOCTL_FW_POWER_PROFILE);
	printf("C SIM_EXEC_MODEL 0x%08lx\n", (unsigned long)NEURON_IOCTL_SIM_EXEC_MODEL);
	printf("C CORE_TAKE_BACK 0x%08lx\n", (unsigned long)NEURON_IOCTL_CORE_TAKE_BACK);
	printf("C CORE_HOLDERS 0x%08lx\n", (unsigned long)NEURON_IOCTL_CORE_HOLDERS);
	printf("C MEM_ALLOC 0x%08lx\n", (unsigned long)NEURON_IOCTL_MEM_ALLOC);
	printf("C MEM_FREE 0x%08lx\n", (unsigned long)NEURON_IOCTL_MEM_FREE);
	printf("C MEM_READ 0x%08lx\n", (unsigned long)NEURON_IOCTL_MEM_READ);
	printf("C MEM_WRITE 0x%08lx\n", (unsigned long)NEURON_IOCTL_MEM_WRITE);
	printf("C MEM_SET 0x%08lx\n", (unsigned long)NEURON_IOCTL_MEM_SET);
	printf("C APPS_INFO 0x%08lx\n", (unsigned long)NEURON_IOCTL_APPS_INFO);
	return 0;
}
