/* Which CPUs the CPU device runs on and which NUMA nodes and caches they
 * share, read from sysfs: the compute units clCreateSubDevices divides. */
#ifndef KILN_PIPE_CPU_TOPOLOGY_H
#define KILN_PIPE_CPU_TOPOLOGY_H

#include "pipe/pipe.h"

/* Fills topo with one unit per CPU of cpus[] (OS numbers), their domains
 * read under sysfs_root ("/sys/devices/system" on a real machine; tests
 * pass a fake tree).  Units are ordered so that neighbours share the
 * innermost caches (NUMA node, then L3, L2, L1, then CPU number): an
 * equal or counted partition then keeps SMT siblings and cache sharers
 * together.  A domain the tree does not describe for every CPU stays -1
 * on all of them, except NUMA: no node information means one node.
 * Returns false (topo empty) when out of memory. */
bool cpu_topology_read(const char *sysfs_root, const int *cpus, unsigned num_cpus,
                       struct pipe_topology *topo);
void cpu_topology_free(struct pipe_topology *topo);

#endif
