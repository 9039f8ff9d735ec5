/* The program whose binary seeds fuzz_binary (make_seeds.c writes it;
 * fuzz_binary.c builds it again for a known good device object). */
#ifndef KILN_FUZZ_PROGRAM_H
#define KILN_FUZZ_PROGRAM_H

#define FUZZ_PROGRAM_OPTIONS "-cl-mad-enable -DN=4"

static const char fuzz_program_src[] =
   "typedef struct { int a; float b; } P;\n"
   "kernel void add(global float *out, constant float *in, float k, int n)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   if (i < n) out[i] = in[i] * k;\n"
   "}\n"
   "__attribute__((reqd_work_group_size(4, 1, 1)))\n"
   "kernel void reduce(global int *out, local int *tmp, P p, uchar4 v)\n"
   "{\n"
   "   size_t l = get_local_id(0);\n"
   "   tmp[l] = p.a + v.x;\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   if (l == 0) out[get_group_id(0)] = tmp[0] + tmp[1] + tmp[2] + tmp[3];\n"
   "}\n";

#endif
