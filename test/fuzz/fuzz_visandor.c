/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_visandor: the input is a whole visandor log, converted in-process by weft's
 * visandor importer with the default options, then read back by weft's reader.
 *
 * Invariants (fuzz_import.h): no read outside the input's buffer, no leak,
 * no undefined behaviour; a refused log is an input error with a message; a
 * converted log opens with trace_open() and merges to its end with times in
 * order (weft's reader accepts what weft's importer wrote). One temporary
 * directory per input, removed after it; nothing is printed but the
 * read-back error before an abort. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_opts o = {.quiet = 1};
	fuzz_import("visandor", data, size, &o);
	return 0;
}
