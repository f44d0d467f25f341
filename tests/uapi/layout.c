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
	F(neuron_info, capabilities); F(neuron_info, driver_version); F(neuron_info, reserved);

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
	return 0;
}
