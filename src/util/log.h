/* Kiln's debug log: topics selected with KILN_DEBUG, output to stderr or
 * to the file named by KILN_LOG. */
#ifndef KILN_UTIL_LOG_H
#define KILN_UTIL_LOG_H

#include <stdbool.h>

enum kiln_log_topic {
   KILN_LOG_API = 1u << 0,     /* every error an entry point returns */
   KILN_LOG_QUEUE = 1u << 1,   /* command scheduling */
   KILN_LOG_MEM = 1u << 2,     /* memory objects */
   KILN_LOG_COMPILE = 1u << 3, /* program builds */
   KILN_LOG_PIPE = 1u << 4,    /* pipe drivers and winsys */
   KILN_LOG_WARN = 1u << 5,    /* always-on warnings (unsupported features) */
   KILN_LOG_BOUNDS = 1u << 6,  /* always on: KILN_CHECK=bounds reports */
};

/* True when the topic was asked for in KILN_DEBUG. */
bool kiln_log_enabled(enum kiln_log_topic topic);

void kiln_log(enum kiln_log_topic topic, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* Re-read KILN_DEBUG / KILN_LOG (tests change them at run time). */
void kiln_log_reset(void);

#endif
