/* Environment switches (see env.h). */
#include "util/env.h"

#include <string.h>
#include <strings.h>

bool kiln_env_off(const char *v)
{
   return v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
                !strcasecmp(v, "false"));
}
