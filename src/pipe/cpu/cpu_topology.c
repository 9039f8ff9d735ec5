#include "pipe/cpu/cpu_topology.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static bool read_first_line(const char *path, char *buf, size_t size)
{
   FILE *f = fopen(path, "r");
   if (!f)
      return false;
   bool ok = fgets(buf, (int)size, f) != NULL;
   fclose(f);
   if (ok)
      buf[strcspn(buf, "\n")] = 0;
   return ok;
}

/* The node a CPU belongs to: sysfs links cpuN/nodeM. */
static int read_node(const char *root, int cpu)
{
   char path[512];
   snprintf(path, sizeof(path), "%s/cpu/cpu%d", root, cpu);
   DIR *d = opendir(path);
   if (!d)
      return -1;
   int node = -1;
   struct dirent *e;
   while ((e = readdir(d))) {
      char *end;
      if (strncmp(e->d_name, "node", 4) || !e->d_name[4])
         continue;
      long v = strtol(e->d_name + 4, &end, 10);
      if (!*end && v >= 0) {
         node = (int)v;
         break;
      }
   }
   closedir(d);
   return node;
}

/* Each data or unified cache of the CPU: the cache instance is named by
 * the lowest CPU sharing it (the first number of shared_cpu_list), which
 * is unique per level even where the optional "id" file is missing. */
static void read_caches(const char *root, int cpu, struct pipe_unit *u)
{
   for (int i = 0; i < 16; i++) {
      char path[512], level[16], type[32], list[256];
      snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/index%d/level", root, cpu, i);
      if (!read_first_line(path, level, sizeof(level)))
         break;
      snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/index%d/type", root, cpu, i);
      if (read_first_line(path, type, sizeof(type)) && !strcmp(type, "Instruction"))
         continue;
      snprintf(path, sizeof(path), "%s/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu, i);
      if (!read_first_line(path, list, sizeof(list)) || list[0] < '0' || list[0] > '9')
         continue;
      int lvl = atoi(level);
      if (lvl < 1 || lvl > 4)
         continue;
      u->domain[PIPE_DOMAIN_L1 - (lvl - 1)] = atoi(list);
   }
}

static int unit_cmp(const void *a, const void *b)
{
   const struct pipe_unit *x = a, *y = b;
   static const enum pipe_domain order[] = {PIPE_DOMAIN_NUMA, PIPE_DOMAIN_L4, PIPE_DOMAIN_L3,
                                            PIPE_DOMAIN_L2, PIPE_DOMAIN_L1};
   for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
      int dx = x->domain[order[i]], dy = y->domain[order[i]];
      if (dx != dy)
         return dx < dy ? -1 : 1;
   }
   return x->os_id < y->os_id ? -1 : x->os_id > y->os_id;
}

bool cpu_topology_read(const char *sysfs_root, const int *cpus, unsigned num_cpus,
                       struct pipe_topology *topo)
{
   memset(topo, 0, sizeof(*topo));
   if (!num_cpus)
      return true;
   struct pipe_unit *units = kiln_calloc(num_cpus, sizeof(*units));
   if (!units)
      return false;
   for (unsigned i = 0; i < num_cpus; i++) {
      units[i].os_id = cpus[i];
      for (int d = 0; d < PIPE_DOMAIN_COUNT; d++)
         units[i].domain[d] = -1;
      units[i].domain[PIPE_DOMAIN_NUMA] = read_node(sysfs_root, cpus[i]);
      read_caches(sysfs_root, cpus[i], &units[i]);
   }
   /* A level known for only some CPUs cannot group them all: forget it.
    * No node links at all is a machine without NUMA: one node. */
   for (int d = 0; d < PIPE_DOMAIN_COUNT; d++) {
      unsigned known = 0;
      for (unsigned i = 0; i < num_cpus; i++)
         known += units[i].domain[d] >= 0;
      if (known == num_cpus)
         continue;
      for (unsigned i = 0; i < num_cpus; i++)
         units[i].domain[d] = d == PIPE_DOMAIN_NUMA && !known ? 0 : -1;
   }
   qsort(units, num_cpus, sizeof(*units), unit_cmp);
   topo->units = units;
   topo->num_units = num_cpus;
   return true;
}

void cpu_topology_free(struct pipe_topology *topo)
{
   kiln_free(topo->units);
   memset(topo, 0, sizeof(*topo));
}
