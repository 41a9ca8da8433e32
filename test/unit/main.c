/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit test runner: every suite of suites.h in one SRunner.
 * CK_FORK=yes (Check's default) runs each test in its own process, so a
 * crash fails that test only. Exit status 0 when every test passed. No
 * test has a time limit: Check's (4 s, or a test case's own) fails tests
 * that take milliseconds when the machine is loaded or sanitized, and no
 * test may depend on the machine's speed (make check runs this with
 * CK_TIMEOUT_MULTIPLIER tiny: a limit left anywhere fails at once). */
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	/* read by tcase_create: every test case below gets no limit */
	setenv("CK_DEFAULT_TIMEOUT", "0", 1);
	SRunner *sr = srunner_create(obs_suite());
	srunner_add_suite(sr, metadata_suite());
	srunner_add_suite(sr, system_suite());
	srunner_add_suite(sr, discover_suite());
	srunner_add_suite(sr, outbuf_suite());
	srunner_add_suite(sr, stream_suite());
	srunner_add_suite(sr, merge_suite());
	srunner_add_suite(sr, jobs_suite());
	srunner_add_suite(sr, sink_suite());
	srunner_add_suite(sr, query_suite());
	srunner_add_suite(sr, recsort_suite());
	srunner_add_suite(sr, clock_suite());
	srunner_add_suite(sr, atomicfile_suite());
	srunner_add_suite(sr, outset_suite());
	srunner_add_suite(sr, jsonscan_suite());
	srunner_add_suite(sr, writer_suite());
	srunner_add_suite(sr, locate_suite());
	srunner_add_suite(sr, picl_suite());
	srunner_add_suite(sr, msgkeys_suite());
	srunner_add_suite(sr, async_suite());
	srunner_add_suite(sr, recpipe_suite());
	srunner_add_suite(sr, vao_line_suite());
	srunner_add_suite(sr, vao_open_suite());
	srunner_add_suite(sr, prv_suite());
	srunner_add_suite(sr, modelfile_suite());
	srunner_add_suite(sr, cfgview_suite());
	srunner_add_suite(sr, pcfcolors_suite());
	srunner_add_suite(sr, prvread_suite());
	srunner_add_suite(sr, task_suite());
	srunner_add_suite(sr, taskprim_suite());
	srunner_add_suite(sr, mkdirp_suite());
	srunner_add_suite(sr, rmtree_suite());
	srunner_add_suite(sr, opts_suite());
	srunner_add_suite(sr, progress_suite());
	srunner_add_suite(sr, usock_suite());
	srunner_add_suite(sr, jline_suite());
	srunner_add_suite(sr, mapfile_suite());
	srunner_add_suite(sr, otf2_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
