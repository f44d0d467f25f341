// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the report of a run (operations, kills, removals,
 * judgements, violations, the command line that replays it).
 */
#include "hostile.h"

void report(void)
{
	uint64_t total = 0, k;
	uint32_t i, n;

	for (k = 0; k < K_MAX; k++)
		total += atomic_load(&sh->done[k]);
	printf("hostile: %" PRIu64 " operations done (%" PRIu64 " issued) in %.1f s, %.0f/s\n", total,
	       atomic_load(&sh->issued) < g_ops ? atomic_load(&sh->issued) : g_ops, g_elapsed,
	       g_elapsed > 0 ? (double)total / g_elapsed : 0.0);
	for (k = 0; k < K_MAX; k++)
		printf("hostile:   %-16s %8" PRIu64 "  (started %" PRIu64 ", succeeded %" PRIu64 ", %" PRIu64
		       " us each, %.1f s in all)\n", kind_name[k], atomic_load(&sh->done[k]),
		       atomic_load(&sh->started[k]), atomic_load(&sh->ok[k]),
		       atomic_load(&sh->usec[k]) / (atomic_load(&sh->done[k]) ? atomic_load(&sh->done[k]) : 1),
		       (double)atomic_load(&sh->usec[k]) / 1e6);
	printf("hostile: workers SIGKILLed %" PRIu64 ", respawned %" PRIu64 ", children forked %" PRIu64
	       " (self-SIGKILL %" PRIu64 "), orphans reaped %" PRIu64 "\n", g_kills, g_respawns,
	       atomic_load(&sh->forks), atomic_load(&sh->child_selfkill), g_orphans);
	printf("hostile: time: %" PRIu64 " worker start-ups %.1f s, kill to reaped %.1f s, removal steps %.1f s (rescans %.1f s)\n",
	       atomic_load(&sh->starts), (double)atomic_load(&sh->start_us) / 1e6, (double)g_kill_us / 1e6,
	       (double)g_removal_us / 1e6, (double)g_rescan_us / 1e6);
	if (g_removal)
		printf("hostile: device removal via %s / %s: %" PRIu64 " removed, %" PRIu64 " re-added, %" PRIu64 " errors\n",
		       g_rm_path, g_add_path, g_removals, g_readds, g_removal_errors);
	else
		printf("hostile: device removal: SKIPPED, no run-time add/remove interface "
		       "(looked for /sys/bus/neuron_sim/{del,new}_device, /sys/kernel/debug/neuron/{del,new}_device, "
		       "$VM_HOSTILE_DEL/$VM_HOSTILE_ADD)\n");
	printf("hostile: devmem-cross: %" PRIu64 " next owners, %" PRIu64 " of them on the freed granule; fdtable-walk: %" PRIu64 " walks timed, the spinning thread kept off its CPU %" PRIu64 " ms at most\n",
	       atomic_load(&sh->devmem_next), atomic_load(&sh->devmem_same), atomic_load(&sh->fdtable_walks),
	       atomic_load(&sh->fdtable_gap_max) / 1000000);
	for (k = 0; k < V_MAX; k++)
		printf("hostile: contract %-6s judged %8" PRIu64 "  violations %" PRIu64 "\n", vclass_name[k],
		       atomic_load(&sh->checked[k]), atomic_load(&sh->viol[k]));
	n = atomic_load(&sh->nmsg);
	for (i = 0; i < n && i < NMSG; i++)
		printf("hostile: VIOLATION %s\n", sh->msg[i]);
	if (n > NMSG)
		printf("hostile: ... and %u more\n", n - NMSG);
	printf("hostile: replay: vm_hostile --seed 0x%016" PRIx64 " --ops %" PRIu64 " --procs %d --threads %d\n",
	       g_seed, g_ops, g_procs, g_threads);
	fflush(stdout);
}
