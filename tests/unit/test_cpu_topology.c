/* The CPU driver's topology parser (src/pipe/cpu/cpu_topology.c) on fake
 * sysfs trees, and the partition planner (src/core/device_partition.c)
 * over the topologies it reads: the machines here are not the one the
 * tests run on, so every affinity domain gets exercised. */
#include "kiln_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/device.h"
#include "core/device_partition.h"
#include "pipe/cpu/cpu_topology.h"

static char root[64];

static void put(const char *rel, const char *text)
{
   char path[512], *slash;
   snprintf(path, sizeof(path), "%s/%s", root, rel);
   /* mkdir -p of the file's directory */
   for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
      *slash = 0;
      mkdir(path, 0755);
      *slash = '/';
   }
   FILE *f = fopen(path, "w");
   assert_non_null(f);
   fputs(text, f);
   fclose(f);
}

static void cache(int cpu, int index, int level, const char *type, const char *shared)
{
   char rel[128];
   snprintf(rel, sizeof(rel), "cpu/cpu%d/cache/index%d/level", cpu, index);
   char lv[8];
   snprintf(lv, sizeof(lv), "%d\n", level);
   put(rel, lv);
   snprintf(rel, sizeof(rel), "cpu/cpu%d/cache/index%d/type", cpu, index);
   put(rel, type);
   snprintf(rel, sizeof(rel), "cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, index);
   put(rel, shared);
}

static void node_link(int cpu, int node)
{
   char rel[64];
   snprintf(rel, sizeof(rel), "cpu/cpu%d/node%d", cpu, node);
   put(rel, ""); /* a symlink in real sysfs; only its name matters */
}

static void make_root(void)
{
   snprintf(root, sizeof(root), "/tmp/kiln-topo-XXXXXX");
   assert_non_null(mkdtemp(root));
}

static void remove_root(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
   assert_int_equal(system(cmd), 0);
}

/* 8 CPUs, 2 NUMA nodes {0-3} {4-7}, an L3 per node, L2 and L1 per SMT
 * pair where the siblings are n and n+2 within a node (as Linux numbers
 * them on many machines: siblings far apart). */
static void two_node_machine(void)
{
   static const char *l2[8] = {"0,2\n", "1,3\n", "0,2\n", "1,3\n",
                               "4,6\n", "5,7\n", "4,6\n", "5,7\n"};
   for (int c = 0; c < 8; c++) {
      node_link(c, c / 4);
      cache(c, 0, 1, "Data\n", l2[c]);
      cache(c, 1, 1, "Instruction\n", l2[c]);
      cache(c, 2, 2, "Unified\n", l2[c]);
      cache(c, 3, 3, "Unified\n", c < 4 ? "0-3\n" : "4-7\n");
   }
}

static void parses_two_nodes(void **state)
{
   (void)state;
   make_root();
   two_node_machine();
   int cpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
   struct pipe_topology t;
   assert_true(cpu_topology_read(root, cpus, 8, &t));
   assert_int_equal(t.num_units, 8);
   /* Ordered so that L2 sharers are neighbours: 0 2 1 3 4 6 5 7. */
   static const int order[8] = {0, 2, 1, 3, 4, 6, 5, 7};
   for (int i = 0; i < 8; i++) {
      int c = order[i];
      assert_int_equal(t.units[i].os_id, c);
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_NUMA], c / 4);
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_L3], c < 4 ? 0 : 4);
      int l2 = (c & ~2) ; /* lowest of the pair */
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_L2], l2);
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_L1], l2); /* the Instruction cache is skipped */
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_L4], -1);
   }
   cpu_topology_free(&t);

   /* Only the CPUs the process may use become units. */
   int some[3] = {1, 5, 6};
   assert_true(cpu_topology_read(root, some, 3, &t));
   assert_int_equal(t.num_units, 3);
   assert_int_equal(t.units[0].os_id, 1);
   assert_int_equal(t.units[1].os_id, 6); /* L2 4,6 comes before 5,7 */
   assert_int_equal(t.units[2].os_id, 5);
   cpu_topology_free(&t);
   remove_root();
}

/* No node links, and one CPU without cache information: NUMA is one node,
 * every cache level unknown (-1) for all. */
static void parses_partial_tree(void **state)
{
   (void)state;
   make_root();
   cache(0, 0, 1, "Data\n", "0\n");
   cache(0, 1, 2, "Unified\n", "0-1\n");
   put("cpu/cpu1/online", "1\n");
   int cpus[2] = {0, 1};
   struct pipe_topology t;
   assert_true(cpu_topology_read(root, cpus, 2, &t));
   assert_int_equal(t.num_units, 2);
   for (int i = 0; i < 2; i++) {
      assert_int_equal(t.units[i].os_id, i);
      assert_int_equal(t.units[i].domain[PIPE_DOMAIN_NUMA], 0);
      for (int d = PIPE_DOMAIN_L4; d <= PIPE_DOMAIN_L1; d++)
         assert_int_equal(t.units[i].domain[d], -1);
   }
   cpu_topology_free(&t);
   /* A tree with nothing at all (no sysfs): still the CPUs, one node. */
   assert_true(cpu_topology_read("/nonexistent-kiln", cpus, 2, &t));
   assert_int_equal(t.num_units, 2);
   assert_int_equal(t.units[1].domain[PIPE_DOMAIN_NUMA], 0);
   assert_int_equal(t.units[1].domain[PIPE_DOMAIN_L2], -1);
   cpu_topology_free(&t);
   remove_root();
}

/* ---- the planner over the 8-CPU machine ---------------------------------- */

static struct pipe_context *fake_context(struct pipe_screen *s, const unsigned *u, unsigned n)
{
   (void)s, (void)u, (void)n;
   return NULL; /* never called by the planner */
}

struct fake {
   struct pipe_screen screen;
   struct _cl_device_id dev;
   unsigned units[8];
};

static void fake_device(struct fake *f, const struct pipe_topology *t, const unsigned *units,
                        unsigned n)
{
   memset(f, 0, sizeof(*f));
   f->screen.topology = *t;
   f->screen.context_create_on_units = fake_context;
   f->dev.screen = &f->screen;
   memcpy(f->units, units, n * sizeof(unsigned));
   f->dev.units = f->units;
   f->dev.num_units = n;
}

static void plans(void **state)
{
   (void)state;
   make_root();
   two_node_machine();
   int cpus[8] = {0, 1, 2, 3, 4, 5, 6, 7};
   struct pipe_topology t;
   assert_true(cpu_topology_read(root, cpus, 8, &t));
   remove_root();
   const unsigned all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
   struct fake f;
   fake_device(&f, &t, all, 8);
   cl_device_id dev = &f.dev;
   struct kiln_partition p;

   assert_int_equal(kiln_device_affinity_domains(dev),
                    CL_DEVICE_AFFINITY_DOMAIN_NUMA | CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE |
                       CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE | CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
                       CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);

   /* Equally by 3: two sub-devices of 3, two units unused. */
   cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 3, 0};
   assert_int_equal(kiln_device_partition(dev, eq, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 2);
   assert_int_equal(p.size[0], 3);
   assert_int_equal(p.size[1], 3);
   assert_int_equal(p.units[p.first[1]], 3);
   assert_int_equal(p.num_props, 3);
   kiln_partition_free(&p);

   cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 2, 5,
                                            CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   assert_int_equal(kiln_device_partition(dev, counts, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 2);
   assert_int_equal(p.size[0], 2);
   assert_int_equal(p.size[1], 5);
   assert_int_equal(p.num_props, 5);
   kiln_partition_free(&p);

   /* NUMA: units 0-3 (CPUs 0 2 1 3) and 4-7. */
   cl_device_partition_property numa[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                          CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0};
   assert_int_equal(kiln_device_partition(dev, numa, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 2);
   for (unsigned g = 0; g < 2; g++) {
      assert_int_equal(p.size[g], 4);
      for (unsigned i = 0; i < 4; i++)
         assert_int_equal(t.units[p.units[p.first[g] + i]].os_id / 4, (int)g);
   }
   kiln_partition_free(&p);
   /* NEXT_PARTITIONABLE on the root is NUMA. */
   cl_device_partition_property next[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                          CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
   assert_int_equal(kiln_device_partition(dev, next, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 2);
   assert_int_equal(p.size[0], 4);
   kiln_partition_free(&p);
   /* L2: four pairs of SMT siblings. */
   cl_device_partition_property l2[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                        CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, 0};
   assert_int_equal(kiln_device_partition(dev, l2, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 4);
   for (unsigned g = 0; g < 4; g++) {
      assert_int_equal(p.size[g], 2);
      int a = t.units[p.units[p.first[g]]].os_id, b = t.units[p.units[p.first[g] + 1]].os_id;
      assert_int_equal(b, a + 2);
   }
   kiln_partition_free(&p);

   /* Errors. */
   cl_device_partition_property l4[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                        CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 0};
   assert_int_equal(kiln_device_partition(dev, l4, &p), CL_INVALID_VALUE);
   assert_int_equal(kiln_device_partition(dev, NULL, &p), CL_INVALID_VALUE);
   cl_device_partition_property eq8[] = {CL_DEVICE_PARTITION_EQUALLY, 8, 0};
   assert_int_equal(kiln_device_partition(dev, eq8, &p), CL_DEVICE_PARTITION_FAILED);
   cl_device_partition_property eq9[] = {CL_DEVICE_PARTITION_EQUALLY, 9, 0};
   assert_int_equal(kiln_device_partition(dev, eq9, &p), CL_INVALID_DEVICE_PARTITION_COUNT);
   cl_device_partition_property many[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, 1, 1, 1, 1, 1, 1,
                                          1, 1, 0, 0};
   assert_int_equal(kiln_device_partition(dev, many, &p), CL_INVALID_DEVICE_PARTITION_COUNT);

   /* A sub-device of one NUMA node: NUMA no longer splits it (failed),
    * NEXT_PARTITIONABLE goes on to L2 (L3 is one per node too). */
   const unsigned node0[4] = {0, 1, 2, 3};
   fake_device(&f, &t, node0, 4);
   assert_int_equal(kiln_device_affinity_domains(dev),
                    CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE | CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
                       CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
   assert_int_equal(kiln_device_partition(dev, numa, &p), CL_DEVICE_PARTITION_FAILED);
   assert_int_equal(kiln_device_partition(dev, next, &p), CL_SUCCESS);
   assert_int_equal(p.num_groups, 2);
   assert_int_equal(p.size[0], 2);
   kiln_partition_free(&p);

   /* One unit: nothing splits it. */
   const unsigned one[1] = {5};
   fake_device(&f, &t, one, 1);
   assert_int_equal(kiln_device_affinity_domains(dev), 0);
   assert_int_equal(kiln_device_partition(dev, next, &p), CL_DEVICE_PARTITION_FAILED);
   cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
   assert_int_equal(kiln_device_partition(dev, eq1, &p), CL_DEVICE_PARTITION_FAILED);

   /* A driver that cannot partition: every scheme is unsupported. */
   f.screen.context_create_on_units = NULL;
   assert_int_equal(kiln_device_partition(dev, eq1, &p), CL_INVALID_VALUE);
   assert_int_equal(kiln_device_affinity_domains(dev), 0);
   cpu_topology_free(&t);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_two_nodes),
      cmocka_unit_test(parses_partial_tree),
      cmocka_unit_test(plans),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
