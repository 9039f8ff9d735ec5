/* Facts about the host CPU, read from the machine (cpuid, /proc, sysfs). */
#ifndef KILN_PIPE_CPU_INFO_H
#define KILN_PIPE_CPU_INFO_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_info {
   char model[128];   /* "AMD EPYC 7B13" */
   char vendor[64];   /* "AuthenticAMD" */
   unsigned vendor_pci_id; /* 0x1022 AMD, 0x8086 Intel, 0 unknown */
   unsigned cores;    /* online CPUs this process may run on */
   int *cpus;         /* their OS numbers, ascending (kiln_malloc'd) */
   unsigned mhz;      /* max (or current) clock */
   unsigned cacheline;
   uint64_t l1d_size, l2_size, llc_size;
   unsigned simd_bytes; /* widest usable vector register: 16, 32, 64 */
   bool avx2, fma;
};

void cpu_info_probe(struct cpu_info *info);

#endif
