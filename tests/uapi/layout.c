// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints the layout of every UAPI struct: one line per struct
 * ("S <name> <size> <align>") and per member ("F <struct>.<member> <offset>
 * <size>"). scripts/uapi-layout.sh builds it with -m32 and -m64 and requires
 * identical output, and sizes that are multiples of 8, so 32-bit processes
 * on a 64-bit kernel see the same ABI.
 *
 * The vendor's ABI (<neuron/neuron_vendor_ioctl.h>) is printed the same way
 * with "V" for its structs, whose sizes are the vendor's (not multiples of
 * 8), and each number, size and offset is checked below against the
 * vendor's x86_64 values, on both builds (docs/vendor-abi.md).
 */
#include <stddef.h>
#include <stdio.h>

#include <neuron/neuron_ioctl.h>
#include <neuron/neuron_nds.h>
#include <neuron/neuron_nq.h>
#include <neuron/neuron_vendor_ioctl.h>

#define S(t) printf("S %s %zu %zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define V(t) printf("V %s %zu %zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define F(t, m) printf("F %s.%s %zu %zu\n", #t, #m, offsetof(struct t, m), sizeof(((struct t *)0)->m))


/* The vendor's values (x86_64): command numbers, struct sizes and offsets. */
#define VCMD(name, value) _Static_assert(NEURON_IOCTL_##name == (value), #name)
VCMD(DEVICE_RESET, 0x00004E01);
VCMD(DEVICE_READY, 0x80014E02);
VCMD(DEVICE_INFO, 0x80084E03);
VCMD(DEVICE_INIT, 0x80084E04);
VCMD(DEVICE_RELEASE, 0x00004E05);
VCMD(DEVICE_APP_PID, 0x80044E06);
VCMD(DEVICE_GET_ALL_APPS_INFO, 0x80084E07);
VCMD(POST_METRIC, 0x40084E0D);
VCMD(NOTIFICATIONS_INIT_V1, 0x80084E33);
VCMD(NOTIFICATIONS_DESTROY_V1, 0x80084E34);
VCMD(NOTIFICATIONS_INIT_V2, 0x80084E35);
VCMD(NOTIFICATIONS_INIT_WITH_REALLOC_V2, 0x80084E36);
VCMD(NOTIFICATIONS_QUEUE_INFO, 0x80084E3A);
VCMD(READ_HW_COUNTERS, 0x80084E3D);
VCMD(ACQUIRE_NEURON_DS, 0x80084E47);
VCMD(RELEASE_NEURON_DS, 0x80084E48);
VCMD(CRWL_NC_RANGE_MARK, 0x40084E55);
VCMD(CRWL_NC_RANGE_MARK_EXT0, 0xC0504E55);
VCMD(CRWL_NC_RANGE_UNMARK, 0x40084E56);
VCMD(CRWL_NC_RANGE_UNMARK_EXT0, 0x40504E56);
VCMD(COMPATIBLE_VERSION, 0x40084E5D);
VCMD(DEVICE_BASIC_INFO, 0x40084E64);
VCMD(DEVICE_BDF, 0x80084E65);
VCMD(NC_RESET, 0x80084E67);
VCMD(NC_RESET_READY, 0x80084E68);
VCMD(DEVICE_BDF_EXT, 0x80084E6A);
VCMD(DEVICE_RESET_STATUS, 0x80014E6A);
VCMD(DRIVER_INFO_GET, 0x80184E6E);
VCMD(DRIVER_INFO_SET, 0x40184E6E);
VCMD(HOST_DEVICE_ID, 0x80044E72);
VCMD(DMABUF_FD, 0x80084E6B);

#define VSZ(t, n) _Static_assert(sizeof(struct t) == (n), #t " size")
#define VOFF(t, m, n) _Static_assert(offsetof(struct t, m) == (n), #t "." #m)
VSZ(neuron_ioctl_device_basic_info, 8);
VOFF(neuron_ioctl_device_basic_info, revision, 4);
VSZ(neuron_ioctl_device_info, 80);
VOFF(neuron_ioctl_device_info, revision, 4);
VOFF(neuron_ioctl_device_info, connected_device_count, 8);
VOFF(neuron_ioctl_device_info, connected_devices, 12);
VOFF(neuron_ioctl_device_info, bar_address, 48);
VOFF(neuron_ioctl_device_info, bar_size, 64);
VSZ(neuron_ioctl_device_bdf, 8);
VOFF(neuron_ioctl_device_bdf, slot, 4);
VOFF(neuron_ioctl_device_bdf, func, 5);
VSZ(neuron_ioctl_device_bdf_ext, 16);
VOFF(neuron_ioctl_device_bdf_ext, domain, 4);
VOFF(neuron_ioctl_device_bdf_ext, bus_number, 8);
VOFF(neuron_ioctl_device_bdf_ext, slot, 12);
VOFF(neuron_ioctl_device_bdf_ext, func, 13);
VSZ(neuron_ioctl_host_device_id, 4);
VSZ(neuron_ioctl_compatible_version, 8);
VOFF(neuron_ioctl_compatible_version, min, 4);
VSZ(neuron_ioctl_device_driver_info, 24);
VOFF(neuron_ioctl_device_driver_info, revision, 4);
VSZ(neuron_ioctl_dmabuf_fd, 24);
VOFF(neuron_ioctl_dmabuf_fd, size, 8);
VOFF(neuron_ioctl_dmabuf_fd, fd, 16);
VOFF(neuron_ioctl_device_driver_info, version, 8);
VOFF(neuron_ioctl_device_driver_info, size, 12);
VOFF(neuron_ioctl_device_driver_info, feature_flags1, 16);
VSZ(neuron_ioctl_crwl_nc_map, 24);
VOFF(neuron_ioctl_crwl_nc_map, start_nc_index, 4);
VOFF(neuron_ioctl_crwl_nc_map, end_nc_index, 8);
VOFF(neuron_ioctl_crwl_nc_map, max_nc_available, 12);
VOFF(neuron_ioctl_crwl_nc_map, bitmap, 16);
VSZ(neuron_ioctl_crwl_nc_map_ext, 80);
VOFF(neuron_ioctl_crwl_nc_map_ext, start_nc_index, 4);
VOFF(neuron_ioctl_crwl_nc_map_ext, end_nc_index, 8);
VOFF(neuron_ioctl_crwl_nc_map_ext, max_nc_available, 12);
VOFF(neuron_ioctl_crwl_nc_map_ext, bitmap, 16);
VSZ(neuron_ioctl_neuron_ds_info, 24);
VOFF(neuron_ioctl_neuron_ds_info, mmap_offset, 8);
VOFF(neuron_ioctl_neuron_ds_info, size, 16);
VSZ(neuron_ioctl_read_hw_counters, 24);
VOFF(neuron_ioctl_read_hw_counters, data, 8);
VOFF(neuron_ioctl_read_hw_counters, count, 16);
VSZ(neuron_ioctl_post_metric, 16);
VOFF(neuron_ioctl_post_metric, data_size, 8);
VSZ(neuron_ioctl_app_info, 152);
VOFF(neuron_ioctl_app_info, nc_lock_map, 4);
VOFF(neuron_ioctl_app_info, uuid_data, 5);
VOFF(neuron_ioctl_app_info, host_mem_size, 136);
VOFF(neuron_ioctl_app_info, device_mem_size, 144);
VSZ(neuron_ioctl_get_apps_info, 16);
VSZ(neuron_ioctl_notifications_init_v1, 24);
VOFF(neuron_ioctl_notifications_init_v1, nq_type, 4);
VOFF(neuron_ioctl_notifications_init_v1, engine_index, 8);
VOFF(neuron_ioctl_notifications_init_v1, size, 12);
VOFF(neuron_ioctl_notifications_init_v1, mmap_offset, 16);
/* INIT_V2 and INIT_WITH_REALLOC_V2 share their first eight u32 */
#define VNQ_V2_HEAD(t)						\
	VOFF(t, nq_dev_type, 4); VOFF(t, nq_type, 8);		\
	VOFF(t, engine_index, 12); VOFF(t, size, 16);		\
	VOFF(t, on_host_memory, 20); VOFF(t, dram_channel, 24);	\
	VOFF(t, dram_region, 28)
VSZ(neuron_ioctl_notifications_init_v2, 48);
VNQ_V2_HEAD(neuron_ioctl_notifications_init_v2);
VOFF(neuron_ioctl_notifications_init_v2, mmap_offset, 32);
VOFF(neuron_ioctl_notifications_init_v2, mem_handle, 40);
VSZ(neuron_ioctl_notifications_init_with_realloc_v2, 56);
VNQ_V2_HEAD(neuron_ioctl_notifications_init_with_realloc_v2);
VOFF(neuron_ioctl_notifications_init_with_realloc_v2, force_alloc_mem, 32);
VOFF(neuron_ioctl_notifications_init_with_realloc_v2, mmap_offset, 40);
VOFF(neuron_ioctl_notifications_init_with_realloc_v2, mem_handle, 48);
VSZ(neuron_ioctl_device_reset, 8);
VOFF(neuron_ioctl_device_reset, request_id, 4);
VSZ(neuron_ioctl_device_ready, 8);
VOFF(neuron_ioctl_device_ready, result, 4);
VOFF(neuron_ioctl_get_apps_info, capacity, 4);
VOFF(neuron_ioctl_get_apps_info, size, 8);
VOFF(neuron_ioctl_get_apps_info, app_data, 16);

/* the members whose size an offset alone would not catch, and the alignments */
#define VMSZ(t, m, n) _Static_assert(sizeof(((struct t *)0)->m) == (n), #t "." #m " size")
#define VALIGN(t, n) _Static_assert(_Alignof(struct t) == (n), #t " alignment")
VMSZ(neuron_ioctl_device_info, connected_devices, 32);
VMSZ(neuron_ioctl_device_info, bar_address, 16);
VMSZ(neuron_ioctl_device_info, bar_size, 16);
VMSZ(neuron_ioctl_device_driver_info, feature_flags1, 8);
VMSZ(neuron_ioctl_device_bdf, slot, 1);
VMSZ(neuron_ioctl_device_bdf, func, 1);
VMSZ(neuron_ioctl_device_bdf_ext, slot, 1);
VMSZ(neuron_ioctl_device_bdf_ext, func, 1);
VMSZ(neuron_ioctl_crwl_nc_map, bitmap, 8);
VMSZ(neuron_ioctl_crwl_nc_map_ext, bitmap, 64);
VMSZ(neuron_ioctl_neuron_ds_info, pid, 4);
VMSZ(neuron_ioctl_neuron_ds_info, size, 4);
VMSZ(neuron_ioctl_read_hw_counters, count, 4);
VMSZ(neuron_ioctl_post_metric, data_size, 4);
VMSZ(neuron_ioctl_app_info, nc_lock_map, 1);
VMSZ(neuron_ioctl_app_info, uuid_data, 128);
VMSZ(neuron_ioctl_app_info, host_mem_size, 8);
VMSZ(neuron_ioctl_app_info, device_mem_size, 8);
VMSZ(neuron_ioctl_get_apps_info, apps_info_flags, 2);
VMSZ(neuron_ioctl_device_ready, result, 4);
VALIGN(neuron_ioctl_device_basic_info, 4);
VALIGN(neuron_ioctl_device_info, 8);
VALIGN(neuron_ioctl_device_bdf, 4);
VALIGN(neuron_ioctl_device_bdf_ext, 4);
VALIGN(neuron_ioctl_host_device_id, 4);
VALIGN(neuron_ioctl_compatible_version, 4);
VALIGN(neuron_ioctl_device_driver_info, 8);
VALIGN(neuron_ioctl_crwl_nc_map, 8);
VALIGN(neuron_ioctl_crwl_nc_map_ext, 8);
VALIGN(neuron_ioctl_neuron_ds_info, 8);
VALIGN(neuron_ioctl_notifications_init_v1, 8);
VALIGN(neuron_ioctl_notifications_init_v2, 8);
VALIGN(neuron_ioctl_notifications_init_with_realloc_v2, 8);
VALIGN(neuron_ioctl_read_hw_counters, 8);
VALIGN(neuron_ioctl_post_metric, 8);
VALIGN(neuron_ioctl_device_reset, 4);
VALIGN(neuron_ioctl_device_ready, 4);
VALIGN(neuron_ioctl_get_apps_info, 8);
VALIGN(neuron_ioctl_app_info, 8);
VALIGN(neuron_ioctl_dmabuf_fd, 8);

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
	S(neuron_nds_read);
	F(neuron_nds_read, size); F(neuron_nds_read, flags); F(neuron_nds_read, pid);
	F(neuron_nds_read, offset); F(neuron_nds_read, bytes); F(neuron_nds_read, reserved0);
	F(neuron_nds_read, user_ptr); F(neuron_nds_read, reserved);

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

	S(neuron_mem_dmabuf_read);
	F(neuron_mem_dmabuf_read, size); F(neuron_mem_dmabuf_read, flags);
	F(neuron_mem_dmabuf_read, fd); F(neuron_mem_dmabuf_read, reserved0);
	F(neuron_mem_dmabuf_read, handle); F(neuron_mem_dmabuf_read, offset);
	F(neuron_mem_dmabuf_read, src_offset); F(neuron_mem_dmabuf_read, bytes);
	F(neuron_mem_dmabuf_read, reserved);

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
	printf("C NDS_READ 0x%08lx\n", (unsigned long)NEURON_IOCTL_NDS_READ);
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
	V(neuron_ioctl_device_basic_info);
	F(neuron_ioctl_device_basic_info, architecture); F(neuron_ioctl_device_basic_info, revision);
	V(neuron_ioctl_device_info);
	F(neuron_ioctl_device_info, architecture); F(neuron_ioctl_device_info, revision);
	F(neuron_ioctl_device_info, connected_device_count);
	F(neuron_ioctl_device_info, connected_devices); F(neuron_ioctl_device_info, pad0);
	F(neuron_ioctl_device_info, bar_address); F(neuron_ioctl_device_info, bar_size);
	V(neuron_ioctl_device_bdf);
	F(neuron_ioctl_device_bdf, bus_number); F(neuron_ioctl_device_bdf, slot);
	F(neuron_ioctl_device_bdf, func); F(neuron_ioctl_device_bdf, pad0);
	V(neuron_ioctl_device_bdf_ext);
	F(neuron_ioctl_device_bdf_ext, nd_index); F(neuron_ioctl_device_bdf_ext, domain);
	F(neuron_ioctl_device_bdf_ext, bus_number); F(neuron_ioctl_device_bdf_ext, slot);
	F(neuron_ioctl_device_bdf_ext, func); F(neuron_ioctl_device_bdf_ext, pad0);
	V(neuron_ioctl_host_device_id);
	F(neuron_ioctl_host_device_id, host_device_id);
	V(neuron_ioctl_compatible_version);
	F(neuron_ioctl_compatible_version, max); F(neuron_ioctl_compatible_version, min);
	V(neuron_ioctl_dmabuf_fd);
	F(neuron_ioctl_dmabuf_fd, va); F(neuron_ioctl_dmabuf_fd, size); F(neuron_ioctl_dmabuf_fd, fd);
	V(neuron_ioctl_device_driver_info);
	F(neuron_ioctl_device_driver_info, architecture); F(neuron_ioctl_device_driver_info, revision);
	F(neuron_ioctl_device_driver_info, version); F(neuron_ioctl_device_driver_info, size);
	F(neuron_ioctl_device_driver_info, feature_flags1);
	V(neuron_ioctl_crwl_nc_map);
	F(neuron_ioctl_crwl_nc_map, nc_count); F(neuron_ioctl_crwl_nc_map, start_nc_index);
	F(neuron_ioctl_crwl_nc_map, end_nc_index); F(neuron_ioctl_crwl_nc_map, max_nc_available);
	F(neuron_ioctl_crwl_nc_map, bitmap);
	V(neuron_ioctl_crwl_nc_map_ext);
	F(neuron_ioctl_crwl_nc_map_ext, nc_count); F(neuron_ioctl_crwl_nc_map_ext, start_nc_index);
	F(neuron_ioctl_crwl_nc_map_ext, end_nc_index);
	F(neuron_ioctl_crwl_nc_map_ext, max_nc_available); F(neuron_ioctl_crwl_nc_map_ext, bitmap);
	V(neuron_ioctl_neuron_ds_info);
	F(neuron_ioctl_neuron_ds_info, pid); F(neuron_ioctl_neuron_ds_info, pad0);
	F(neuron_ioctl_neuron_ds_info, mmap_offset); F(neuron_ioctl_neuron_ds_info, size);
	F(neuron_ioctl_neuron_ds_info, pad1);
	V(neuron_ioctl_read_hw_counters);
	F(neuron_ioctl_read_hw_counters, address); F(neuron_ioctl_read_hw_counters, data);
	F(neuron_ioctl_read_hw_counters, count); F(neuron_ioctl_read_hw_counters, pad0);
	V(neuron_ioctl_post_metric);
	F(neuron_ioctl_post_metric, data); F(neuron_ioctl_post_metric, data_size);
	F(neuron_ioctl_post_metric, pad0);
	V(neuron_ioctl_app_info);
	F(neuron_ioctl_app_info, pid); F(neuron_ioctl_app_info, nc_lock_map);
	F(neuron_ioctl_app_info, uuid_data); F(neuron_ioctl_app_info, pad0);
	F(neuron_ioctl_app_info, host_mem_size); F(neuron_ioctl_app_info, device_mem_size);
	V(neuron_ioctl_get_apps_info);
	F(neuron_ioctl_get_apps_info, apps_info_flags); F(neuron_ioctl_get_apps_info, pad0);
	F(neuron_ioctl_get_apps_info, capacity); F(neuron_ioctl_get_apps_info, size);
	F(neuron_ioctl_get_apps_info, pad1);
	printf("F neuron_ioctl_get_apps_info.app_data %zu 0\n", offsetof(struct neuron_ioctl_get_apps_info, app_data));
	V(neuron_ioctl_notifications_init_v1);
	F(neuron_ioctl_notifications_init_v1, nc_id);
	F(neuron_ioctl_notifications_init_v1, nq_type);
	F(neuron_ioctl_notifications_init_v1, engine_index);
	F(neuron_ioctl_notifications_init_v1, size);
	F(neuron_ioctl_notifications_init_v1, mmap_offset);
	V(neuron_ioctl_notifications_init_v2);
	F(neuron_ioctl_notifications_init_v2, nq_dev_id);
	F(neuron_ioctl_notifications_init_v2, nq_dev_type);
	F(neuron_ioctl_notifications_init_v2, nq_type);
	F(neuron_ioctl_notifications_init_v2, engine_index);
	F(neuron_ioctl_notifications_init_v2, size);
	F(neuron_ioctl_notifications_init_v2, on_host_memory);
	F(neuron_ioctl_notifications_init_v2, dram_channel);
	F(neuron_ioctl_notifications_init_v2, dram_region);
	F(neuron_ioctl_notifications_init_v2, mmap_offset);
	F(neuron_ioctl_notifications_init_v2, mem_handle);
	V(neuron_ioctl_notifications_init_with_realloc_v2);
	F(neuron_ioctl_notifications_init_with_realloc_v2, nq_dev_id);
	F(neuron_ioctl_notifications_init_with_realloc_v2, dram_region);
	F(neuron_ioctl_notifications_init_with_realloc_v2, force_alloc_mem);
	F(neuron_ioctl_notifications_init_with_realloc_v2, pad0);
	F(neuron_ioctl_notifications_init_with_realloc_v2, mmap_offset);
	F(neuron_ioctl_notifications_init_with_realloc_v2, mem_handle);
	V(neuron_ioctl_device_reset);
	F(neuron_ioctl_device_reset, nc_map); F(neuron_ioctl_device_reset, request_id);
	V(neuron_ioctl_device_ready);
	F(neuron_ioctl_device_ready, request_id); F(neuron_ioctl_device_ready, result);

	printf("C VENDOR_DEVICE_INFO 0x%08lx\n", (unsigned long)NEURON_IOCTL_DEVICE_INFO);
	printf("C VENDOR_CRWL_NC_RANGE_MARK 0x%08lx\n", (unsigned long)NEURON_IOCTL_CRWL_NC_RANGE_MARK);
	printf("C VENDOR_CRWL_NC_RANGE_MARK_EXT0 0x%08lx\n",
	       (unsigned long)NEURON_IOCTL_CRWL_NC_RANGE_MARK_EXT0);
	printf("C VENDOR_ACQUIRE_NEURON_DS 0x%08lx\n", (unsigned long)NEURON_IOCTL_ACQUIRE_NEURON_DS);
	printf("C VENDOR_READ_HW_COUNTERS 0x%08lx\n", (unsigned long)NEURON_IOCTL_READ_HW_COUNTERS);
	printf("C VENDOR_DRIVER_INFO_GET 0x%08lx\n", (unsigned long)NEURON_IOCTL_DRIVER_INFO_GET);
	printf("C VENDOR_NOTIFICATIONS_INIT_V2 0x%08lx\n",
	       (unsigned long)NEURON_IOCTL_NOTIFICATIONS_INIT_V2);
	printf("C VENDOR_NC_RESET 0x%08lx\n", (unsigned long)NEURON_IOCTL_NC_RESET);
	return 0;
}
