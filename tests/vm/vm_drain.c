// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vm_drain: wait until everything written to the console has left the
 * serial port (tcdrain on stdout). /init runs it last, before it tells
 * QEMU to exit through isa-debug-exit: QEMU exits at once, so output still
 * in the tty's transmit buffer (the tail of the kernel-log dump, the
 * verdict line) would be lost, and the host would judge a cut log.
 * Not a test program; exits 0 when drained, 1 when stdout is no tty.
 */
#include <termios.h>
#include <unistd.h>

int main(void)
{
	return tcdrain(STDOUT_FILENO) ? 1 : 0;
}
