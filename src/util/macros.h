/* SPDX-License-Identifier: GPL-3.0-or-later */
/* macros: two compile-time helpers for every layer.
 * ARRAY_SIZE(a): the number of elements of the array a; given a pointer
 * instead of an array it does not compile (a size that would be wrong).
 * WEFT_MUST_CHECK: on a function that can fail (it returns -1 with a
 * weft_err filled, or NULL): a caller that drops the result gets a warning,
 * an error under -Werror (err.h's contract: every failure is reported);
 * WEFT_IGNORED(call) drops one on purpose. */
#ifndef WEFT_MACROS_H
#define WEFT_MACROS_H

/* 0, or a compile error when x is not an array (a pointer's type is its
 * first element's address's) */
#define WEFT_IS_ARRAY_(x)                                                                                  \
	(0 * (int) sizeof(struct {                                                                         \
		 int weft_is_array_ : 1 + -2 * !!__builtin_types_compatible_p(__typeof__(x),             \
									  __typeof__(&(x)[0]));        \
	 }))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + (size_t) WEFT_IS_ARRAY_(a))

#define WEFT_MUST_CHECK __attribute__((warn_unused_result))
/* A WEFT_MUST_CHECK result dropped on purpose (an error path that already
 * holds the first failure; a cleanup): say why beside it. GCC does not
 * take a (void) cast for that. */
#define WEFT_IGNORED(call) ((void) !(call))

#endif
