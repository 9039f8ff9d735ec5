#ifndef KILN_API_UNSUPPORTED_H
#define KILN_API_UNSUPPORTED_H

#include <CL/cl_icd.h>

/* Points every not-yet-implemented slot of d at its error stub. */
void kiln_unsupported_fill(cl_icd_dispatch *d);

#endif
