/* The ICD dispatch table shared by every Kiln handle. */
#ifndef KILN_API_ICD_H
#define KILN_API_ICD_H

#include <CL/cl_icd.h>

extern cl_icd_dispatch kiln_dispatch;

/* The Kiln platform with the dispatch table installed: every entry point
 * that can create the first object goes through here. */
cl_platform_id kiln_api_platform(void);

#endif
