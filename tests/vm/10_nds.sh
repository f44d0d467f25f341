# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest suite: NDS slabs, the counter bridge, the sysfs counter tree, ECC files.
SUITE=nds
PLAN=67
. /tests/lib.sh

check load load sim_devices=2 sim_nc_per_device=8
D=/sys/devices/virtual/neuron_device/neuron0

# The tree, with the real names.
names="success failure timeout exec_bad_input hw_error execute_completed_with_error
execute_completed_with_num_error generic_error resource_error resource_nc_error
execute_failed_to_queue invalid_error unsupported_neff_version oob_error
hw_collectives_error hw_hbm_ue_error hw_nc_ue_error hw_dma_abort_error
execute_sw_nq_overflow execute_sw_semaphore_error execute_sw_event_error
execute_sw_psum_collision execute_sw_sequencer_fatal hw_repairable_hbm_ue_error"
missing=
for k in 0 7; do
	for n in $names; do
		for f in total present; do
			[ -f $D/neuron_core$k/stats/status/$n/$f ] || missing="$missing nc$k/$n/$f"
		done
	done
done
check_eq status-tree-24-counters "" "$missing"
check_eq status-count 24 "$(ls $D/neuron_core3/stats/status | wc -l)"
check_eq other-info "flop_count inference_count model_load_count nc_time_in_use reset_fail_count reset_req_count" \
	"$(ls $D/neuron_core0/stats/other_info | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq no-core-8 "" "$(ls -d $D/neuron_core8 2>/dev/null)"
check_eq counter-mode "-rw-r--r--" "$(ls -l $D/neuron_core0/stats/status/success/total | cut -c1-10)"
check_eq arch-type NDsim "$(cat $D/info/architecture/arch_type)"
check_eq nc-arch-type NCsim "$(cat $D/neuron_core0/info/architecture/arch_type)"
check_eq hardware-files "health_status mem_ecc_corrected mem_ecc_repairable_uncorrected mem_ecc_uncorrected sram_ecc_corrected sram_ecc_uncorrected" \
	"$(ls $D/stats/hardware | sort | tr '\n' ' ' | sed 's/ $//')"
HS=$D/stats/hardware/health_status
check_eq health-status-files "healthcheck_heartbeat hw_error_events mem_ecc_uncorrected sram_ecc_uncorrected unhealthy_components" \
	"$(ls $HS | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq health-status-idle "|0|0|0" "$(cat $HS/unhealthy_components)|$(cat $HS/hw_error_events)|$(cat $HS/sram_ecc_uncorrected)|$(cat $HS/mem_ecc_uncorrected)"
check_eq power-files "utilization utilization_raw" "$(ls $D/stats/power | sort | tr '\n' ' ' | sed 's/ $//')"
check power-raw-form grep -qE '^([0-9]+\.[0-9]{2}(,[0-9]+\.[0-9]{2})*|POWER_STATUS_NO_DATA)$' $D/stats/power/utilization_raw
check fw-io-files test -f $D/stats/fw_io/err_count -a -f $D/stats/fw_io/timeout_count
check_eq notify-default -1 "$(cat $D/info/notify_delay)"

run_prog /tests/vm_nds

# ECC words through debugfs, read back through sysfs (16/16 split).
I=/sys/kernel/debug/neuron/neuron0/inject/ecc
check_eq ecc-initial "0 0 0" "$(cat $D/stats/hardware/sram_ecc_uncorrected) $(cat $D/stats/hardware/mem_ecc_uncorrected) $(cat $D/stats/hardware/mem_ecc_repairable_uncorrected)"
check ecc-inject-sram sh -c "echo 'sram 3 9' > $I"
check_eq ecc-sram "3 9" "$(cat $D/stats/hardware/sram_ecc_uncorrected) $(cat $D/stats/hardware/sram_ecc_corrected)"
# health_status/: the poller's next read (hw_err_poll_ms, 1 s) caches the
# count, logs one line and one health change, and names the component
hs_is() { [ "$(cat $HS/sram_ecc_uncorrected) $(cat $HS/unhealthy_components) $(cat $HS/hw_error_events)" = "$1" ]; }
wait_for health-status-sram 5000 hs_is "3 sram 2"
# the poller's next check (every hw_err_poll_ms) counts one more
beat=$(cat $HS/healthcheck_heartbeat)
wait_for health-status-heartbeat 5000 sh -c "[ \$(cat $HS/healthcheck_heartbeat) -gt $beat ]"
check ecc-inject-hbm sh -c "echo 'hbm0 2 1' > $I && echo 'hbm3 5 4' > $I"
check_eq ecc-hbm-sum "7 5" "$(cat $D/stats/hardware/mem_ecc_uncorrected) $(cat $D/stats/hardware/mem_ecc_corrected)"
# two HBM lines (one per channel that rose); the health stays needs_reset
wait_for health-status-hbm 5000 sh -c "[ \"\$(cat $HS/mem_ecc_uncorrected) \$(cat $HS/unhealthy_components) \$(cat $HS/hw_error_events)\" = '7 hbm sram 4' ]"
check ecc-repair-pending sh -c "echo 'repair pending' > $I"
check_eq ecc-repairable "0 7" "$(cat $D/stats/hardware/mem_ecc_uncorrected) $(cat $D/stats/hardware/mem_ecc_repairable_uncorrected)"
check ecc-repair-failed sh -c "echo 'repair failed' > $I"
check_eq ecc-unrepairable "7 0" "$(cat $D/stats/hardware/mem_ecc_uncorrected) $(cat $D/stats/hardware/mem_ecc_repairable_uncorrected)"
for bad in "hbm4 1" "sram 65536" "sram" "sram 1 2 3" "repair maybe" "dram 1" "sram -1" "sram 1x"; do
	expect_refused "ecc-refuses-'$bad'" 'inject/ecc: expected' sh -c "echo '$bad' > $I"
done
check_eq ecc-unchanged-after-bad "3" "$(cat $D/stats/hardware/sram_ecc_uncorrected)"
# Only a reset repairs an uncorrected error: a word that reads lower
# (cleared, or toggling across the baseline) keeps the health it caused,
# with no HEALTH line per toggle.
two_checks() {
	beat=$(cat $HS/healthcheck_heartbeat)
	wait_for "$1" 10000 sh -c "[ \$(cat $HS/healthcheck_heartbeat) -gt $((beat + 1)) ]"
}
# checks every 50 ms meanwhile (the period in force when the poller re-arms)
echo 50 > /sys/module/neuron/parameters/hw_err_poll_ms
was="$(cat $D/health) $(cat $D/health_reason)"
check_eq ecc-needs-reset needs_reset "${was% *}"
mark
echo 'sram 0' > $I && echo 'hbm0 0' > $I && echo 'hbm3 0' > $I
two_checks ecc-cleared-checked
check_eq ecc-cleared-still "$was" "$(cat $D/health) $(cat $D/health_reason)"
echo 'sram 3' > $I && echo 'hbm0 2' > $I && echo 'hbm3 5' > $I
two_checks ecc-toggled-checked
check_eq ecc-toggled-no-health-line "0 $was" "$(since_mark | grep -c '_HW_ERR=HEALTH ') $(cat $D/health) $(cat $D/health_reason)"
echo 1000 > /sys/module/neuron/parameters/hw_err_poll_ms
check ecc-reset sh -c "echo 1 > $D/reset"
check_eq ecc-reset-repairs "ok none" "$(cat $D/health) $(cat $D/health_reason)"
check_eq inject-root-only "--w-------" "$(ls -l $I | cut -c1-10)"

check unload unload
finish
