#include "pipe/cpu/cpu_info.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

static bool read_line(const char *path, char *buf, size_t size)
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

/* Parses "32K", "1024K", "32M" from sysfs cache sizes. */
static uint64_t parse_size(const char *s)
{
   char *end;
   uint64_t v = strtoull(s, &end, 10);
   if (*end == 'K')
      v <<= 10;
   else if (*end == 'M')
      v <<= 20;
   return v;
}

static void probe_caches(struct cpu_info *info)
{
   unsigned best_level = 0;
   for (int i = 0; i < 8; i++) {
      char path[96], level[16], type[32], size[32], line[16];
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
      if (!read_line(path, level, sizeof(level)))
         break;
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
      if (!read_line(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
         continue;
      snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
      if (!read_line(path, size, sizeof(size)))
         continue;
      snprintf(path, sizeof(path),
               "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
      if (read_line(path, line, sizeof(line)) && atoi(line) > 0)
         info->cacheline = (unsigned)atoi(line);
      unsigned lvl = (unsigned)atoi(level);
      uint64_t bytes = parse_size(size);
      if (lvl == 1)
         info->l1d_size = bytes;
      if (lvl == 2)
         info->l2_size = bytes;
      if (lvl >= best_level) {
         best_level = lvl;
         info->llc_size = bytes;
      }
   }
   /* Fallbacks through glibc's cpuid-based view. */
   long v;
   if (!info->cacheline && (v = sysconf(_SC_LEVEL1_DCACHE_LINESIZE)) > 0)
      info->cacheline = (unsigned)v;
   if (!info->l1d_size && (v = sysconf(_SC_LEVEL1_DCACHE_SIZE)) > 0)
      info->l1d_size = (uint64_t)v;
   if (!info->l2_size && (v = sysconf(_SC_LEVEL2_CACHE_SIZE)) > 0)
      info->l2_size = (uint64_t)v;
   if (!info->llc_size && (v = sysconf(_SC_LEVEL3_CACHE_SIZE)) > 0)
      info->llc_size = (uint64_t)v;
   if (!info->llc_size)
      info->llc_size = info->l2_size;
   if (!info->cacheline)
      info->cacheline = 64;
}

static void probe_cpuinfo(struct cpu_info *info)
{
   FILE *f = fopen("/proc/cpuinfo", "r");
   if (!f)
      return;
   char line[512];
   double mhz = 0;
   while (fgets(line, sizeof(line), f)) {
      char *colon = strchr(line, ':');
      if (!colon)
         continue;
      char *val = colon + 1;
      while (*val == ' ' || *val == '\t')
         val++;
      val[strcspn(val, "\n")] = 0;
      if (!strncmp(line, "model name", 10) && !info->model[0])
         snprintf(info->model, sizeof(info->model), "%s", val);
      else if (!strncmp(line, "vendor_id", 9) && !info->vendor[0])
         snprintf(info->vendor, sizeof(info->vendor), "%s", val);
      else if (!strncmp(line, "cpu MHz", 7) && atof(val) > mhz)
         mhz = atof(val);
   }
   fclose(f);
   info->mhz = (unsigned)(mhz + 0.5);
}

void cpu_info_probe(struct cpu_info *info)
{
   memset(info, 0, sizeof(*info));

   cpu_set_t set;
   if (sched_getaffinity(0, sizeof(set), &set) == 0)
      info->cores = (unsigned)CPU_COUNT(&set);
   if (info->cores && (info->cpus = kiln_malloc(info->cores * sizeof(int)))) {
      unsigned n = 0;
      for (int c = 0; c < CPU_SETSIZE && n < info->cores; c++)
         if (CPU_ISSET(c, &set))
            info->cpus[n++] = c;
   }
   if (!info->cores) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      info->cores = n > 0 ? (unsigned)n : 1;
   }

   probe_cpuinfo(info);
   char buf[64];
   if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf, sizeof(buf)) &&
       atoi(buf) > 0)
      info->mhz = (unsigned)(atoi(buf) / 1000);
   if (!info->model[0])
      snprintf(info->model, sizeof(info->model), "Host CPU");
   if (!info->vendor[0])
      snprintf(info->vendor, sizeof(info->vendor), "Unknown");
   if (!strcmp(info->vendor, "GenuineIntel"))
      info->vendor_pci_id = 0x8086;
   else if (!strcmp(info->vendor, "AuthenticAMD"))
      info->vendor_pci_id = 0x1022;

   probe_caches(info);

#if defined(__x86_64__) || defined(__i386__)
   __builtin_cpu_init();
   info->simd_bytes = 16;
   if (__builtin_cpu_supports("avx"))
      info->simd_bytes = 32;
   if (__builtin_cpu_supports("avx512f"))
      info->simd_bytes = 64;
   info->avx2 = __builtin_cpu_supports("avx2");
   info->fma = __builtin_cpu_supports("fma");
#else
   info->simd_bytes = 16;
#endif
}
