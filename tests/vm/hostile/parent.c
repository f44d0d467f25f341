// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest vm_hostile: the parent: workers started, SIGKILLed at random and
 * started again, the removal steps, the watchdog.
 */
#include "hostile.h"

struct wslot {
	pid_t pid;
	int gen;
	int done;
};

static struct wslot g_w[MAXW];
uint64_t g_kills, g_respawns, g_orphans, g_removals, g_readds, g_removal_errors;
uint64_t g_kill_us, g_removal_us, g_rescan_us;	/* the parent's time in these */

/* the parent's rescan after a removal or re-add, timed */
void parent_rescan(void)
{
	uint64_t t0 = now_us();

	rescan();
	g_rescan_us += now_us() - t0;
}
double g_elapsed;
uint64_t g_ctl_rng;

uint32_t ctl_below(uint32_t n) { return n ? (uint32_t)(splitmix(&g_ctl_rng) % n) : 0; }

static pid_t spawn_worker(int i)
{
	pid_t p = fork();

	if (p == 0) {
		g_widx = i;
		g_gen = g_w[i].gen;
		setpriority(PRIO_PROCESS, 0, 0);	/* the parent's boost is not theirs */
		_exit(worker_main());
	}
	g_w[i].pid = p > 0 ? p : 0;
	atomic_store(&sh->worker_pid[i], p > 0 ? p : 0);
	return p;
}

static void dump_stacks(pid_t pid)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dp = opendir(path);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		char p2[300];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p2, sizeof(p2), "/proc/%d/task/%s/stack", (int)pid, de->d_name);
		fd = open(p2, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("hostile: kernel stack of %d/%s:\n%s", (int)pid, de->d_name, buf);
		}
	}
	closedir(dp);
}

/* A process ended: a worker (finished, or died: respawned) or an orphaned child. */
static void ended(pid_t p, int st)
{
	int i, ok_end = (WIFEXITED(st) && WEXITSTATUS(st) == 0);

	for (i = 0; i < g_procs; i++) {
		if (g_w[i].pid != p)
			continue;
		g_w[i].pid = 0;
		atomic_store(&sh->worker_pid[i], 0);
		judged(V_DEATH);
		if (ok_end) {
			g_w[i].done = 1;
			return;
		}
		viol(NULL, V_DEATH, "worker %d generation %d ended with %s %d (not by the fuzzer)", i,
		     g_w[i].gen, WIFSIGNALED(st) ? "signal" : "status",
		     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		if (atomic_load(&sh->issued) < g_ops) {
			g_w[i].gen++;
			g_respawns++;
			spawn_worker(i);
		} else {
			g_w[i].done = 1;
		}
		return;
	}
	/* a worker's child, reparented to us when its worker was killed */
	g_orphans++;
	judged(V_DEATH);
	if (!ok_end && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
		viol(NULL, V_DEATH, "orphaned child %d ended with %s %d", (int)p,
		     WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

void run_fuzz(void)
{
	uint64_t t0 = vt_now_ms(), last = t0, seen = ~0ULL;
	int i, st, live, removed = -1;
	uint32_t removed_nc = 0;
	char buf[32];
	pid_t p;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/*
	 * The parent kills, removes and rescans on its own clock; at the
	 * workers' priority it got one share in 13 of two vCPUs, and a
	 * rescan after a removal took 8 s on the debug kernel, without a
	 * kill meanwhile. (Root in the guest; harmless if refused.)
	 */
	setpriority(PRIO_PROCESS, 0, -10);
	for (i = 0; i < g_procs; i++)
		spawn_worker(i);
	for (;;) {
		uint64_t is = atomic_load(&sh->issued), progress = is, k;

		for (k = 0; k < K_MAX; k++)
			progress += atomic_load(&sh->done[k]);
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			ended(p, st);
		for (live = 0, i = 0; i < g_procs; i++)
			live += g_w[i].pid > 0;
		if (!live && is >= g_ops)
			break;
		if (progress != seen) {
			seen = progress;
			last = vt_now_ms();
		} else if (vt_now_ms() - last > 60000) {
			printf("hostile: no progress for 60 s at %" PRIu64 " operations issued: a hang\n", is);
			for (i = 0; i < g_procs; i++)
				if (g_w[i].pid > 0)
					dump_stacks(g_w[i].pid);
			viol(NULL, V_HANG, "no operation completed for 60 s (%" PRIu64 " issued)", is);
			for (i = 0; i < g_procs; i++)
				if (g_w[i].pid > 0)
					kill(g_w[i].pid, SIGKILL);
			break;
		}
		if (is >= g_ops) {
			vt_pace_ms(10);
			continue;
		}
		/* SIGKILL a worker at a random point and start it again */
		if (ctl_below(1000) < 350) {
			i = (int)ctl_below(g_procs);
			if (g_w[i].pid > 0) {
				pid_t wp = g_w[i].pid;
				uint64_t k0 = now_us();

				kill(wp, SIGKILL);
				while (waitpid(wp, &st, 0) < 0 && errno == EINTR)
					;
				g_kill_us += now_us() - k0;
				g_w[i].pid = 0;
				atomic_store(&sh->worker_pid[i], 0);
				if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
					g_w[i].done = 1;
				} else {
					g_kills++;
					if (atomic_load(&sh->issued) < g_ops) {
						g_w[i].gen++;
						g_respawns++;
						spawn_worker(i);
					} else {
						g_w[i].done = 1;
					}
				}
			}
		}
		if (g_removal) {
			uint64_t r0 = now_us();

			removal_step(&removed, &removed_nc);
			g_removal_us += now_us() - r0;
		}
		vt_pace_ms(5 + ctl_below(35));
	}
	snprintf(buf, sizeof(buf), "%d %u\n", removed, removed_nc);
	if (removed >= 0 && !write_str(g_add_path, buf))
		g_readds++;
	/* orphans still finishing their few operations */
	for (last = vt_now_ms(); vt_now_ms() - last < 30000;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			ended(p, st);
			continue;
		}
		if (p < 0 && errno == ECHILD)
			break;
		vt_pace_ms(10);
	}
	g_elapsed = (double)(vt_now_ms() - t0) / 1000.0;
}
