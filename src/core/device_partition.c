#include "core/device_partition.h"

#include <string.h>

#include "util/alloc.h"

bool kiln_device_can_partition(cl_device_id dev)
{
   return dev->num_units && dev->screen->context_create_on_units;
}

/* CL_DEVICE_AFFINITY_DOMAIN_NUMA .. L1_CACHE are bits 0..4, in the order
 * of enum pipe_domain. */
static cl_device_affinity_domain domain_bit(enum pipe_domain d)
{
   return (cl_device_affinity_domain)1 << d;
}

/* Groups dev's units by their instance of domain d, in the order the
 * groups first appear; writes each unit's group to group_of[] (when not
 * NULL).  Returns the number of groups, or 0 when the domain is unknown
 * for some unit. */
static unsigned domain_groups(cl_device_id dev, enum pipe_domain d, unsigned *group_of)
{
   const struct pipe_unit *topo = dev->screen->topology.units;
   unsigned groups = 0;
   for (unsigned i = 0; i < dev->num_units; i++) {
      int id = topo[dev->units[i]].domain[d];
      if (id < 0)
         return 0;
      unsigned j = 0;
      while (j < i && topo[dev->units[j]].domain[d] != id)
         j++;
      if (j == i) {
         if (group_of)
            group_of[i] = groups;
         groups++;
      } else if (group_of) {
         group_of[i] = group_of[j];
      }
   }
   return groups;
}

cl_device_affinity_domain kiln_device_affinity_domains(cl_device_id dev)
{
   if (!kiln_device_can_partition(dev))
      return 0;
   cl_device_affinity_domain mask = 0;
   for (int d = 0; d < PIPE_DOMAIN_COUNT; d++)
      if (domain_groups(dev, (enum pipe_domain)d, NULL) >= 2)
         mask |= domain_bit((enum pipe_domain)d);
   if (mask)
      mask |= CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
   return mask;
}

static cl_int alloc_plan(struct kiln_partition *p, unsigned groups, unsigned units)
{
   p->num_groups = groups;
   p->first = kiln_calloc(groups, sizeof(unsigned));
   p->size = kiln_calloc(groups, sizeof(unsigned));
   p->units = kiln_calloc(units ? units : 1, sizeof(unsigned));
   if (!p->first || !p->size || !p->units) {
      kiln_partition_free(p);
      return CL_OUT_OF_HOST_MEMORY;
   }
   return CL_SUCCESS;
}

/* Consecutive runs of dev's units (the driver orders them so that
 * neighbours share caches). */
static cl_int plan_runs(cl_device_id dev, const cl_device_partition_property *sizes,
                        unsigned groups, unsigned each, struct kiln_partition *p)
{
   unsigned total = 0;
   for (unsigned g = 0; g < groups; g++)
      total += sizes ? (unsigned)sizes[g] : each;
   cl_int err = alloc_plan(p, groups, total);
   if (err)
      return err;
   unsigned at = 0;
   for (unsigned g = 0; g < groups; g++) {
      p->first[g] = at;
      p->size[g] = sizes ? (unsigned)sizes[g] : each;
      at += p->size[g];
   }
   memcpy(p->units, dev->units, total * sizeof(unsigned));
   return CL_SUCCESS;
}

static cl_int plan_domain(cl_device_id dev, enum pipe_domain d, struct kiln_partition *p)
{
   unsigned *group_of = kiln_malloc(dev->num_units * sizeof(unsigned));
   if (!group_of)
      return CL_OUT_OF_HOST_MEMORY;
   unsigned groups = domain_groups(dev, d, group_of);
   cl_int err = alloc_plan(p, groups, dev->num_units);
   if (!err) {
      /* Group by group, each keeping the device's unit order. */
      unsigned at = 0;
      for (unsigned g = 0; g < groups; g++) {
         p->first[g] = at;
         for (unsigned i = 0; i < dev->num_units; i++)
            if (group_of[i] == g)
               p->units[at++] = dev->units[i];
         p->size[g] = at - p->first[g];
      }
   }
   kiln_free(group_of);
   return err;
}

cl_int kiln_device_partition(cl_device_id dev, const cl_device_partition_property *props,
                             struct kiln_partition *p)
{
   memset(p, 0, sizeof(*p));
   if (!props)
      return CL_INVALID_VALUE;
   const unsigned n = dev->num_units;
   switch (props[0]) {
   case CL_DEVICE_PARTITION_EQUALLY: {
      if (props[1] <= 0 || props[2] != 0 || !kiln_device_can_partition(dev))
         return CL_INVALID_VALUE;
      if ((cl_ulong)props[1] > n)
         return CL_INVALID_DEVICE_PARTITION_COUNT;
      unsigned each = (unsigned)props[1];
      if (each == n)
         return CL_DEVICE_PARTITION_FAILED; /* one sub-device, the whole device */
      p->num_props = 3;
      return plan_runs(dev, NULL, n / each, each, p);
   }
   case CL_DEVICE_PARTITION_BY_COUNTS: {
      /* Counts up to LIST_END (0), then the list's terminating 0. */
      size_t k = 0;
      cl_ulong total = 0;
      bool negative = false;
      while (props[1 + k] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END && k <= n) {
         negative |= props[1 + k] < 0;
         if (props[1 + k] > 0)
            total += (cl_ulong)props[1 + k];
         k++;
      }
      if (!kiln_device_can_partition(dev))
         return CL_INVALID_VALUE;
      if (negative || k > n || total > n)
         return CL_INVALID_DEVICE_PARTITION_COUNT;
      if (k == 0 || props[2 + k] != 0)
         return CL_INVALID_VALUE;
      if (k == 1 && total == n)
         return CL_DEVICE_PARTITION_FAILED;
      p->num_props = k + 3;
      return plan_runs(dev, props + 1, (unsigned)k, 0, p);
   }
   case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN: {
      cl_device_affinity_domain want = (cl_device_affinity_domain)props[1];
      bool one_bit = want && !(want & (want - 1)) &&
                     want <= CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
      if (!one_bit || props[2] != 0 || !kiln_device_can_partition(dev))
         return CL_INVALID_VALUE;
      p->num_props = 3;
      if (want == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE) {
         /* Outermost first: NUMA node, then L4 .. L1 cache. */
         for (int d = 0; d < PIPE_DOMAIN_COUNT; d++)
            if (domain_groups(dev, (enum pipe_domain)d, NULL) >= 2)
               return plan_domain(dev, (enum pipe_domain)d, p);
         return CL_DEVICE_PARTITION_FAILED;
      }
      enum pipe_domain d = (enum pipe_domain)__builtin_ctzll(want);
      unsigned groups = domain_groups(dev, d, NULL);
      if (!groups)
         return CL_INVALID_VALUE; /* the machine does not say: unsupported */
      if (groups == 1)
         return CL_DEVICE_PARTITION_FAILED;
      return plan_domain(dev, d, p);
   }
   default:
      return CL_INVALID_VALUE;
   }
}

void kiln_partition_free(struct kiln_partition *p)
{
   kiln_free(p->first);
   kiln_free(p->size);
   kiln_free(p->units);
   memset(p, 0, sizeof(*p));
}
