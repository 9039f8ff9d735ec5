/* Reading Kiln's switches from the environment (docs/env.md). */
#ifndef KILN_UTIL_ENV_H
#define KILN_UTIL_ENV_H

#include <stdbool.h>

/* Whether a switch's value turns it off: 0, off, no or false (any case).
 * NULL (unset) is not off. */
bool kiln_env_off(const char *value);

#endif
