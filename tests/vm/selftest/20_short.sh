# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Harness self-test: a suite that ends normally but ran fewer checks than
# it plans (a block skipped). Expected: "ran 1 of the 3 checks".
PLAN=3
. /tests/lib.sh
check only-check true
finish
