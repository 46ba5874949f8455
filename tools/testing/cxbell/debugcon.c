// SPDX-License-Identifier: GPL-2.0
/*
 * debugcon: write the arguments, space separated, and a newline to QEMU's
 * isa-debugcon port (0xe9), which the host reads from a file. The
 * benchmark reports its progress this way during an -icount boot: a port
 * write is one instruction and raises no guest interrupt, where console
 * output would land interrupts inside the measured runs (the console
 * drains at host speed). A machine without the device ignores the bytes.
 *
 *   debugcon TEXT...
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * tcpblast.
 */
#include <stdio.h>
#include <sys/io.h>

#define DEBUGCON_PORT	0xe9

static void put(const char *s)
{
	while (*s)
		outb((unsigned char)*s++, DEBUGCON_PORT);
}

int main(int argc, char **argv)
{
	int i;

	if (ioperm(DEBUGCON_PORT, 1, 1)) {
		perror("debugcon: ioperm");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (i > 1)
			put(" ");
		put(argv[i]);
	}
	put("\n");
	return 0;
}
