/* SPDX-License-Identifier: GPL-3.0-or-later */
/* racer: the attacker of test/malformed/tmpdir.sh. In DIR, swaps the
 * directory SUB and the symbolic link SUB.lnk (pointing outside) back and
 * forth with one atomic exchange each time, as fast as it can, until the
 * file STOP exists or SUB is gone; so a sweep that walks DIR by path finds
 * SUB a directory when it looks and a link when it enters.
 *
 *   racer DIR SUB STOP */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: racer DIR SUB STOP\n");
		return 2;
	}
	int d = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (d < 0)
		return 1;
	char lnk[256];
	snprintf(lnk, sizeof(lnk), "%s.lnk", argv[2]);
	for (unsigned long i = 0;; i++) {
		if (renameat2(d, argv[2], d, lnk, RENAME_EXCHANGE) != 0)
			return 0; /* swept */
		if ((i & 1023) == 0 && access(argv[3], F_OK) == 0)
			return 0;
	}
}
