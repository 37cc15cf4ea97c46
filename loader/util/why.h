/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * util/why.h - the reason a call failed, for the user: a caller's buffer
 * that the layers below write one message into. A function that can say
 * why takes a 'struct why *' (never NULL); the caller makes one from its
 * array with WHY(array) and prints the array. A struct why of length 0
 * holds no reason: writing to it writes nothing, and it reads as empty.
 * Header-only: every layer may include it.
 */
#ifndef XDP_STEER_UTIL_WHY_H
#define XDP_STEER_UTIL_WHY_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct why {
	char *buf;
	size_t len;
};

/* A reason written into the char array 'a' (an array, not a pointer:
 * a pointer fails to compile, as its size is not the buffer's). */
#define WHY(a)								\
	((struct why){ (a), sizeof(a) + 0 * sizeof(char[1 - 2 *		\
		__builtin_types_compatible_p(__typeof__(a),		\
					     __typeof__(&(a)[0]))]) })

static inline void why_vset(struct why *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static inline void why_vset(struct why *w, const char *fmt, va_list ap)
{
	if (w->len)
		vsnprintf(w->buf, w->len, fmt, ap);
}

/* The reason is this one, whatever was there before. */
static inline void why_set(struct why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void why_set(struct why *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	why_vset(w, fmt, ap);
	va_end(ap);
}

static inline bool why_empty(const struct why *w)
{
	return !w->len || !w->buf[0];
}

/* The reason is this one unless one is there already: the first failure
 * says why, not what failed after it. */
static inline void why_first(struct why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void why_first(struct why *w, const char *fmt, ...)
{
	va_list ap;

	if (!why_empty(w))
		return;
	va_start(ap, fmt);
	why_vset(w, fmt, ap);
	va_end(ap);
}

static inline void why_clear(struct why *w)
{
	if (w->len)
		w->buf[0] = '\0';
}

/* The room after the reason so far, where a second one goes on from it. */
static inline struct why why_rest(const struct why *w)
{
	size_t n = w->len ? strlen(w->buf) : 0;

	return (struct why){ w->buf + n, w->len - n };
}

#endif /* XDP_STEER_UTIL_WHY_H */
