// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest benchmark: how cost grows with work, each ratio from one run.
 *
 *   - jobs: 1, 2, 4 and 8 processes, each with a NeuronCore of its own
 *     (NEURON_RT_VISIBLE_CORES=i), each running the same number of
 *     nrt_execute() calls of an empty model at once: the jobs per second
 *     of them all, and the CPU time per job (the processes' user + system
 *     time over their jobs, from wait4()). With P processes the work is P
 *     times 1's: CPU time per job staying flat is cost growing no faster
 *     than the work; jobs/s grows at most to the guest's CPU count.
 *   - neuron-monitor: its CPU time per report with 1 and with 64
 *     applications holding a slab (16 a device on 4 devices, the most a
 *     device takes: NEURON_NDS_PER_DEVICE), from two runs of 1 and of
 *     1 + N reports (the difference is N reports' cost, without the
 *     start-up; N is 40 unless given), best of 3, the two sides
 *     alternating (monitor_per_report()).
 *   - the sysfs "total" of neuron0's NeuronCore 0 with 1 and with 64 live
 *     slabs (the same 64: 16 of them on neuron0).
 *
 *   vm_bench_scale [jobs] [reports]
 *
 * Expects the module loaded with 4 simulated devices of 2 NeuronCores and
 * neff-pack and neuron-monitor beside it.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ndl/ndl.h>
#include <neuron/neuron_nds.h>
#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt.h>

#include "vmbench.h"

#define DEVICES 4
#define CORES 8
#define HOLDERS 64

static char dir[256];

static double cpu_s(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/*
 * One process of the job round: its own NeuronCore @core, a warm-up, then
 * "ready" on @ready, @jobs executions once @go closes, the CPU seconds
 * they took (a double) on @ready, exit 0.
 */
static void job_child(int core, const void *neff, size_t size, int jobs, int ready, int go)
{
	nrt_model_t *m = NULL;
	struct rusage r0, r1;
	char env[16], c;
	double used;
	int i;

	snprintf(env, sizeof(env), "%d", core);
	setenv("NEURON_RT_VISIBLE_CORES", env, 1);
	if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, NULL, NULL) != NRT_SUCCESS ||
	    nrt_load(neff, size, 0, -1, &m) != NRT_SUCCESS)
		_exit(1);
	for (i = 0; i < 20; i++)
		if (nrt_execute(m, NULL, NULL) != NRT_SUCCESS)
			_exit(1);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	if (read(go, &c, 1) != 0)	/* EOF: go */
		_exit(1);
	getrusage(RUSAGE_SELF, &r0);
	for (i = 0; i < jobs; i++)
		if (nrt_execute(m, NULL, NULL) != NRT_SUCCESS)
			_exit(1);
	getrusage(RUSAGE_SELF, &r1);
	used = cpu_s(&r1) - cpu_s(&r0);
	if (write(ready, &used, sizeof(used)) != sizeof(used))
		_exit(1);
	nrt_unload(m);
	nrt_close();
	_exit(0);
}

/*
 * @procs processes at once: jobs/s of them all into *@rate, the CPU
 * seconds of their jobs (each process's own count around its loop) into
 * *@cpu. 0 or -1.
 */
static int job_round(int procs, const void *neff, size_t size, int jobs, double *rate, double *cpu)
{
	int ready[2], go[2], i, bad = 0;
	pid_t kids[CORES];
	double used = 0;
	uint64_t t0;
	char c;

	if (pipe(ready) || pipe(go))
		return -1;
	for (i = 0; i < procs; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return -1;
		if (kids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			job_child(i, neff, size, jobs, ready[1], go[0]);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < procs; i++)
		if (read(ready[0], &c, 1) != 1)
			bad = 1;
	t0 = now_ns();
	close(go[1]);
	for (i = 0; i < procs; i++) {
		double u;

		if (read(ready[0], &u, sizeof(u)) != sizeof(u))
			bad = 1;
		else
			used += u;
	}
	*rate = (double)procs * jobs / ((double)(now_ns() - t0) / 1e9);
	for (i = 0; i < procs; i++) {
		int status;

		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	}
	*cpu = used;
	close(ready[0]);
	return bad ? -1 : 0;
}

/*
 * A slab holder on @dev: holds one (the device open, its slab acquired and
 * a counter moved) from the start and after each 'o' on @cmd, lets go of
 * it (slab and device) after each 'c', answers each with one byte on @ack,
 * and exits when @cmd closes.
 */
static pid_t holder(int dev, int cmd, int ack)
{
	pid_t pid = fork();
	ndl_device_t *d = NULL;
	nds_instance_t *s = NULL;
	char c = 'o';

	if (pid != 0)
		return pid;
	/* none of the other holders' command pipes: each sees its own close */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != cmd && fd != ack)
			close(fd);
	do {
		if (c == 'o' && !s) {
			if (ndl_open_device(dev, NULL, &d) || nds_open(d, 0, &s))
				_exit(1);
			nds_increment_nc_counter(s, 0, NDS_NC_COUNTER_INFER_COMPLETED, 1);
		} else if (c == 'c' && s) {
			nds_close(s);
			ndl_close_device(d);
			s = NULL;
		}
		if (write(ack, &c, 1) != 1)
			_exit(1);
	} while (read(cmd, &c, 1) == 1);
	_exit(0);
}

/* One holder's answer on @ack: 0, or -1 after 30 s (a holder that died answers nothing). */
static int holder_answer(int ack)
{
	struct pollfd p = { .fd = ack, .events = POLLIN };
	char a;

	return poll(&p, 1, 30000) == 1 && read(ack, &a, 1) == 1 ? 0 : -1;
}

/* Send @c to the holders of @cmd[@from..@to) and wait for their answers. */
static int holders_do(const int *cmd, int from, int to, int ack, char c)
{
	int n;

	for (n = from; n < to; n++)
		if (write(cmd[n], &c, 1) != 1)
			return -1;
	for (n = from; n < to; n++)
		if (holder_answer(ack))
			return -1;
	return 0;
}

/* neuron-monitor's CPU seconds for @count reports at the shortest period. */
static double monitor_cpu(int count)
{
	char cnt[16], mon[300], cfg[] = "/tmp/vm_bench_scale.json";
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f = fopen(cfg, "w");

	if (!f)
		return -1;
	fputs("{\"period\": \"100ms\", \"neuron_runtimes\": [{\"tag_filter\": \".*\", \"metrics\": "
	      "[{\"type\": \"neuroncore_counters\"}, {\"type\": \"memory_used\"}, "
	      "{\"type\": \"neuron_runtime_vcpu_usage\"}, {\"type\": \"execution_stats\"}]}], "
	      "\"system_metrics\": [{\"type\": \"vcpu_usage\"}, {\"type\": \"memory_info\"}, "
	      "{\"type\": \"neuron_hw_counters\"}]}\n", f);
	fclose(f);
	snprintf(cnt, sizeof(cnt), "%d", count);
	snprintf(mon, sizeof(mon), "%s/neuron-monitor", dir);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) < 0)
			_exit(127);
		/* no instance metadata service here: refused at once */
		setenv("NEURON_MONITOR_IMDS_ADDR", "127.0.0.1:9", 1);
		execl(mon, mon, "-c", cfg, "--count", cnt, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "vm_bench_scale: %s failed\n", mon);
		return -1;
	}
	return cpu_s(&ru);
}

/*
 * neuron-monitor's CPU seconds per report with 64 applications (@m64) and
 * with 1 (@m1): (1 + @n reports) - (1 report), best of 3 each. The two
 * alternate (64, 1, 1, 64, 64, 1), holders 1..63 of @cmd letting go of
 * their slabs and devices for the one-application side and taking them
 * again after, so that a stretch of load on the host falls on both sides.
 */
static int monitor_per_report(const int *cmd, int ack, int n, double *m64, double *m1)
{
	int k, i;

	*m64 = *m1 = 1e30;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 2; i++) {
			int side = i ^ (k & 1);	/* 0: 64 applications, 1: one */
			double one, more, per, *best = side ? m1 : m64;

			if (holders_do(cmd, 1, HOLDERS, ack, side ? 'c' : 'o')) {
				fprintf(stderr, "vm_bench_scale: a slab holder failed\n");
				return -1;
			}
			one = monitor_cpu(1);
			more = monitor_cpu(1 + n);
			if (one < 0 || more < 0)
				return -1;
			per = (more - one) / n;
			if (per < *best)
				*best = per;
		}
	}
	if (*m64 <= 0 || *m1 <= 0) {
		fprintf(stderr, "vm_bench_scale: the monitor's reports cost no CPU time (%g, %g s)\n",
			*m64, *m1);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int jobs = argc > 1 ? atoi(argv[1]) : 2000;
	/*
	 * 40: the start-up's spread (tens of ms of CPU from run to run, most
	 * of it loading libraries) comes to about a millisecond a report
	 */
	int reports = argc > 2 ? atoi(argv[2]) : 40;
	static const int procs[] = { 1, 2, 4, 8 };
	double rate[4], cpu[4], mon1, mon64, tot1 = 0, tot64;
	int ack[2], hcmd[HOLDERS], i, k, n;
	pid_t kids[HOLDERS];
	char neffp[] = "/tmp/vm_bench_scale.neff", cmd[600];
	size_t size = 0;
	void *neff;
	ssize_t len;

	if (jobs < 1 || reports < 1) {
		fprintf(stderr, "vm_bench_scale: jobs and reports must be at least 1\n");
		return 2;
	}
	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len <= 0)
		return 1;
	dir[len] = '\0';
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "%s/neff-pack -o %s --name empty", dir, neffp);
	if (system(cmd) != 0 || !(neff = vb_slurp(neffp, &size))) {
		fprintf(stderr, "vm_bench_scale: '%s' failed\n", cmd);
		return 1;
	}

	/* best of 3 rounds each */
	for (i = 0; i < 4; i++) {
		double r, u;

		rate[i] = 0;
		cpu[i] = 1e30;
		for (k = 0; k < 3; k++) {
			if (job_round(procs[i], neff, size, jobs, &r, &u)) {
				fprintf(stderr, "vm_bench_scale: a round of %d processes failed\n",
					procs[i]);
				return 1;
			}
			rate[i] = r > rate[i] ? r : rate[i];
			cpu[i] = u < cpu[i] ? u : cpu[i];
		}
	}
	for (i = 0; i < 4; i++) {
		double per = cpu[i] / ((double)procs[i] * jobs);

		printf("jobs, %d process%s on %d NeuronCore%s: %10.0f jobs/s %8.1f us CPU/job\n",
		       procs[i], procs[i] > 1 ? "es" : "  ", procs[i], procs[i] > 1 ? "s" : " ",
		       rate[i], per * 1e6);
		cpu[i] = per;
	}
	for (i = 1; i < 4; i++)
		printf("ratio jobs/s %dprocs/1proc (ideal %d, at most the guest's CPUs): %.2f\n",
		       procs[i], procs[i], rate[i] / rate[0]);
	printf("ratio CPU time per job 8procs/1proc: %.2f\n", cpu[3] / cpu[0]);

	/* the sysfs total with 1 live slab, then 64 (16 a device) */
	signal(SIGPIPE, SIG_IGN);	/* a holder that died: EPIPE, not the end */
	if (pipe(ack))
		return 1;
	for (n = 0; n < HOLDERS; n++) {
		int p[2];

		if (pipe(p))
			return 1;
		kids[n] = holder(n % DEVICES, p[0], ack[1]);
		close(p[0]);
		hcmd[n] = p[1];
		if (kids[n] < 0)
			return 1;
		if (holder_answer(ack[0])) {
			fprintf(stderr, "vm_bench_scale: slab holder %d failed\n", n);
			return 1;
		}
		if (n == 0)
			tot1 = read_total_ns(2000);
	}
	close(ack[1]);	/* the holders' own: all of them gone reads as EOF */
	tot64 = read_total_ns(2000);
	/* neuron-monitor with 64 applications and with 1, alternately */
	if (monitor_per_report(hcmd, ack[0], reports, &mon64, &mon1))
		return 1;
	for (n = 0; n < HOLDERS; n++)
		close(hcmd[n]);
	for (n = 0; n < HOLDERS; n++)
		waitpid(kids[n], NULL, 0);
	printf("neuron-monitor, 1 application:   %10.2f ms CPU/report\n", mon1 * 1e3);
	printf("neuron-monitor, 64 applications: %10.2f ms CPU/report\n", mon64 * 1e3);
	printf("ratio monitor CPU per report 64apps/1app: %.2f\n", mon64 / mon1);
	printf("sysfs total read, 1 live slab:   %10.1f ns/read\n", tot1);
	printf("sysfs total read, 64 live slabs: %10.1f ns/read (16 of them on neuron0)\n", tot64);
	printf("ratio sysfs total 64slabs/1slab: %.2f\n", tot64 / tot1);
	free(neff);
	return 0;
}
