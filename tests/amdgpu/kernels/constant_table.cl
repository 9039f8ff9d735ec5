/* Program-scope __constant data: LLVM puts it in .rodata and the code
 * reaches it through ABS32_LO/HI relocations the loader applies. */
__constant int table[8] = {3, 5, 7, 11, 13, 17, 19, 23};
__constant int table2[8] = {2, 4, 6, 8, 10, 12, 14, 16};
__constant float ftab[4] = {1.5f, 2.5f, 3.5f, 4.5f};

__kernel void constant_table(__global int *o, __global float *f)
{
   int i = get_global_id(0);
   o[i] = table[i & 7] + table2[(i >> 3) & 7];
   f[i] = ftab[i & 3];
}
