# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: the time bounds measure real time (busybox date has no
# %N; now_ms reads /proc/uptime). A slow command and a state that never
# comes must FAIL; a fast command must PASS.
PLAN=3
. /tests/lib.sh
check_within slow-command-over-bound 300 sleep 1
wait_for state-never-reached 300 false
check_within fast-command-in-bound 5000 true
finish
