#ifndef KILN_API_TIMER_H
#define KILN_API_TIMER_H

#include <CL/cl.h>

/* CL_PLATFORM_HOST_TIMER_RESOLUTION: nanoseconds per tick of the host
 * timer clGetHostTimer reads (never 0: Kiln supports timer sync). */
cl_ulong kiln_api_host_timer_resolution(void);

#endif
