# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: a suite that exits before its end, with status 0.
# scripts/harness-selftest.sh expects the host to report it as unfinished.
PLAN=2
. /tests/lib.sh
check first-check true
exit 0
