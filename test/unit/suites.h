/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suites: one Check suite per tested module; main.c runs them all. */
#ifndef WEFT_SUITES_H
#define WEFT_SUITES_H

#include <check.h>

Suite *obs_suite(void);
Suite *metadata_suite(void);
Suite *system_suite(void);
Suite *discover_suite(void);
Suite *outbuf_suite(void);
Suite *stream_suite(void);
Suite *merge_suite(void);
Suite *query_suite(void);
Suite *recsort_suite(void);
Suite *clock_suite(void);
Suite *atomicfile_suite(void);
Suite *writer_suite(void);
Suite *picl_suite(void);
Suite *msgkeys_suite(void);
Suite *async_suite(void);
Suite *recpipe_suite(void);
Suite *vao_line_suite(void);
Suite *vao_open_suite(void);
Suite *prv_suite(void);
Suite *modelfile_suite(void);
Suite *outset_suite(void);
Suite *jsonscan_suite(void);
Suite *cfgview_suite(void);
Suite *pcfcolors_suite(void);
Suite *prvread_suite(void);
Suite *task_suite(void);
Suite *taskprim_suite(void);
Suite *mkdirp_suite(void);
Suite *rmtree_suite(void);
Suite *jobs_suite(void);
Suite *opts_suite(void);
Suite *locate_suite(void);
Suite *progress_suite(void);
Suite *usock_suite(void);
Suite *jline_suite(void);
Suite *mapfile_suite(void);
Suite *otf2_suite(void);
Suite *sink_suite(void);

#endif
