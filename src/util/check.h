/* KILN_CHECK: the run-time checks a process asked for (docs/env.md). */
#ifndef KILN_UTIL_CHECK_H
#define KILN_UTIL_CHECK_H

#include <stdbool.h>

/* KILN_CHECK names "bounds": programs are built with bounds checks and
 * launches carry a bounds table.  Read once per process. */
bool kiln_check_bounds(void);

#endif
