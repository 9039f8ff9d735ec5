#!/usr/bin/env python3
"""Writes image_glue.ll (the x86-64 CPU's image and sampler handles) for
another target: its triple and data layout, and the address space its
front end gives sampler_t (the CPU's fake map puts __constant at 2).

usage: retarget_glue.py IN.ll OUT.ll TRIPLE DATALAYOUT SAMPLER_ADDRSPACE
"""
import re
import sys


def main():
    src, dst, triple, layout, sampler_as = sys.argv[1:6]
    text = open(src).read()
    text = re.sub(r'^target datalayout = ".*"$', 'target datalayout = "%s"' % layout, text,
                  flags=re.M)
    text = re.sub(r'^target triple = ".*"$', 'target triple = "%s"' % triple, text, flags=re.M)
    text = text.replace('ptr addrspace(2)', 'ptr addrspace(%s)' % sampler_as)
    with open(dst, 'w') as f:
        f.write(text)


if __name__ == '__main__':
    main()
