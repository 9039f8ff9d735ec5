/* How clCreateSubDevices divides a device's compute units: the partition
 * schemes of OpenCL 1.2 §4.3 over the driver's topology (pipe.h). */
#ifndef KILN_CORE_DEVICE_PARTITION_H
#define KILN_CORE_DEVICE_PARTITION_H

#include <stdbool.h>

#include "core/device.h"

/* The sub-devices one call makes: group i is units[first[i]] ..
 * units[first[i] + size[i] - 1] (topology indices). */
struct kiln_partition {
   unsigned num_groups;
   unsigned *first, *size;
   unsigned *units;
   size_t num_props; /* length of the properties list, terminating 0 included */
};

/* Whether the driver can run work on a subset of dev's compute units. */
bool kiln_device_can_partition(cl_device_id dev);

/* CL_DEVICE_AFFINITY_DOMAIN_* bits of the domains that split dev into two
 * or more sub-devices, and NEXT_PARTITIONABLE when any does. */
cl_device_affinity_domain kiln_device_affinity_domains(cl_device_id dev);

/* Plans the partition props asks for, with clCreateSubDevices's errors
 * (CL_INVALID_VALUE, CL_DEVICE_PARTITION_FAILED,
 * CL_INVALID_DEVICE_PARTITION_COUNT, CL_OUT_OF_HOST_MEMORY). */
cl_int kiln_device_partition(cl_device_id dev, const cl_device_partition_property *props,
                             struct kiln_partition *out);
void kiln_partition_free(struct kiln_partition *p);

#endif
