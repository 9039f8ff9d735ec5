#!/usr/bin/env python3
"""Checks that Kiln's builtins library defines what kernels call.

Each kernel is compiled exactly as Kiln's CPU device compiles OpenCL C (the
cc1 flags below), linked with kiln_builtins.bc by llvm-link, and every
`_Z...` symbol still undefined afterwards is an error, except the work-item,
barrier and fence functions that Kiln's work-group pass replaces.

--all additionally generates a kernel calling every builtin that Clang's
opencl-c.h declares for OpenCL C 1.2 (one call per overload), so a family
that is claimed covered cannot silently miss one type or address space.
Families Kiln does not implement yet are listed in NOT_YET.

--generic does the same for every builtin with a pointer parameter that
opencl-c.h declares for OpenCL C 3.0 with the CPU device's features and
the generic address space (the __generic overloads a 3.0 kernel calls
instead of the named ones), compiled as such a kernel.

--read-write-images does the same for every builtin taking a read_write
image (the CPU device has __opencl_c_read_write_images): the sampler-less
reads, the writes (half ones included) and the queries of all six image
types.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KERNEL_FLAGS = ['-triple', 'x86_64-unknown-linux-gnu', '-cl-std=CL1.2',
                '-finclude-default-header', '-fdeclare-opencl-builtins',
                '-cl-kernel-arg-info', '-ffake-address-space-map']

# Replaced by Kiln's work-group compiler pass, never defined by the library.
PASS_HANDLED = {'get_work_dim', 'get_global_size', 'get_global_id',
                'get_local_size', 'get_local_id', 'get_num_groups',
                'get_group_id', 'get_global_offset', 'get_enqueued_local_size',
                'barrier', 'mem_fence', 'read_mem_fence', 'write_mem_fence'}

# Declared by opencl-c.h for 1.2 but not (yet) provided by the library.
NOT_YET = [
    re.compile(r'^amd_'),                 # cl_amd_media_ops, never advertised
]


def demangled_name(sym):
    m = re.match(r'_Z(\d+)', sym)
    if not m:
        return None
    n = int(m.group(1))
    start = m.end()
    return sym[start:start + n]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write('command failed: %s\n%s%s' % (' '.join(cmd), r.stdout, r.stderr))
        sys.exit(2)
    return r.stdout


# OpenCL C 3.0 with the CPU device's features (src/core/device_version.c;
# the header-only ones as macros, as src/llvm/clc_frontend.cpp passes them)
# and the generic address space.
GENERIC_FLAGS = ['-cl-std=CL3.0',
                 '-cl-ext=-all,+cl_khr_fp64,+cl_khr_int64_base_atomics,'
                 '+cl_khr_int64_extended_atomics,+__opencl_c_int64,+__opencl_c_fp64,'
                 '+__opencl_c_atomic_order_acq_rel,+__opencl_c_atomic_order_seq_cst,'
                 '+cl_khr_fp16,+__opencl_c_images,+cl_khr_3d_image_writes,+__opencl_c_3d_image_writes,'
                 '+__opencl_c_program_scope_global_variables,+__opencl_c_generic_address_space,'
                 '+__opencl_c_read_write_images',
                 '-D__opencl_c_atomic_scope_device=1', '-D__opencl_c_atomic_scope_all_devices=1']


def header_signatures(clang, resdir, tmp, std_flags=('-cl-std=CL1.2',), every_image=False):
    """(name, return type, [param types]) for every overload opencl-c.h
    declares in OpenCL C 1.2 (or as std_flags say) on this target, the
    half ones (cl_khr_fp16) included."""
    empty = os.path.join(tmp, 'empty.cl')
    open(empty, 'w').close()
    pp = run([clang, '-cc1', '-E', '-triple', 'x86_64-unknown-linux-gnu'] + list(std_flags) +
             ['-finclude-default-header',
              '-ffake-address-space-map',
              # Extensions Kiln's CPU device does not report, whose
              # functions opencl-c.h declares for OpenCL C 1.2 on x86.
              '-cl-ext=-cl_khr_subgroups,-cl_intel_subgroups,'
              '-cl_intel_subgroups_short,-cl_intel_subgroups_char,'
              '-cl_intel_subgroups_long,-cl_intel_device_side_avc_motion_estimation,'
              '-cl_khr_gl_msaa_sharing,-cl_khr_depth_images,-cl_khr_mipmap_image,'
              '-cl_khr_mipmap_image_writes',
              '-internal-isystem', os.path.join(resdir, 'include'), '-x', 'cl',
              empty])
    sigs = []
    decl = re.compile(r'^(.*?)\s*__attribute__\(\(overloadable\)\)\s*(?:__attribute__\(\([a-z_]+\)\)\s*)*'
                      r'([A-Za-z_0-9]+)\((.*)\);$')
    for line in pp.splitlines():
        m = decl.match(line.strip())
        if not m:
            continue
        ret, name, params = m.groups()
        if name in PASS_HANDLED or any(p.search(name) for p in NOT_YET):
            continue
        params = [p.strip() for p in params.split(',')] if params.strip() not in ('', 'void') else []
        # The 1D and array image types: not in the library yet.
        if not every_image and any(re.search(r'image1d|image2d_array', p) for p in params):
            continue
        # OpenCL C 1.2's sampler-less read_image*(image, coord): not yet.
        if not every_image and name.startswith('read_image') and len(params) == 2:
            continue
        sigs.append((name, ret.strip(), params))
    return sigs


def all_builtins_kernel(sigs):
    """A kernel with one call per overload; variables are left
    uninitialised (only the references matter) and the file is compiled at
    -O0 so no call is dropped.  Images and samplers can only be parameters,
    so those are the kernel's."""
    out = ['#pragma OPENCL EXTENSION cl_khr_fp64 : enable',
           '#pragma OPENCL EXTENSION cl_khr_fp16 : enable',
           '#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable',
           '#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable',
           '#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable',
           None]
    kparams = []
    for i, (name, ret, params) in enumerate(sigs):
        args = []
        body = []
        for j, p in enumerate(params):
            v = 'a%d_%d' % (i, j)
            if 'image' in p or 'sampler_t' in p:
                kparams.append('%s %s' % (p, v))
            elif p.endswith('*'):
                body.append('%s%s;' % (p, v))
            else:
                body.append('%s %s;' % (p, v))
            args.append(v)
        out.append('  { %s %s(%s); }' % (' '.join(body), name, ', '.join(args)))
    out.append('}')
    out[5] = 'kernel void all_builtins(%s) {' % (', '.join(kparams) or 'void')
    return '\n'.join(out) + '\n'


def undefined_builtins(clang, llvm_link, llvm_nm, resdir, library, kernel, tmp, opt_level='-O0',
                       extra=()):
    base = os.path.join(tmp, os.path.basename(kernel))
    run([clang, '-cc1'] + KERNEL_FLAGS + list(extra) +
        ['-internal-isystem', os.path.join(resdir, 'include'),
        opt_level, '-emit-llvm-bc', '-x', 'cl', kernel, '-o', base + '.bc'])
    run([llvm_link, base + '.bc', library, '-o', base + '.linked.bc'])
    syms = run([llvm_nm, '--undefined-only', '--format=just-symbols', base + '.linked.bc']).split()
    missing = []
    for s in syms:
        name = demangled_name(s)
        if name is not None and name not in PASS_HANDLED:
            missing.append(s)
    return missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--clang', required=True)
    ap.add_argument('--llvm-link', required=True)
    ap.add_argument('--llvm-nm', required=True)
    ap.add_argument('--resource-dir', required=True)
    ap.add_argument('--library', required=True)
    ap.add_argument('--kernel-arg', action='append', default=None,
                    help='a cc1 flag of the kernel compile (repeat; default: KERNEL_FLAGS)')
    ap.add_argument('--all', action='store_true', help='also check every opencl-c.h builtin')
    ap.add_argument('--generic', action='store_true',
                    help='also check every pointer builtin of OpenCL C 3.0 with generic')
    ap.add_argument('--read-write-images', action='store_true',
                    help='also check every builtin taking a read_write image (OpenCL C 3.0)')
    ap.add_argument('kernels', nargs='*')
    a = ap.parse_args()
    if a.kernel_arg:
        KERNEL_FLAGS[:] = a.kernel_arg

    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        kernels = list(a.kernels)
        if a.all:
            sigs = header_signatures(a.clang, a.resource_dir, tmp)
            path = os.path.join(tmp, 'all_builtins.cl')
            with open(path, 'w') as f:
                f.write(all_builtins_kernel(sigs))
            print('generated calls to %d builtin overloads' % len(sigs))
            kernels.append(path)
        if a.generic:
            sigs = [g for g in header_signatures(a.clang, a.resource_dir, tmp, GENERIC_FLAGS)
                    if any(p.endswith('*') for p in g[2])]
            path = os.path.join(tmp, 'generic_builtins.cl')
            with open(path, 'w') as f:
                f.write(all_builtins_kernel(sigs))
            print('generated calls to %d pointer builtin overloads of OpenCL C 3.0 with '
                  'generic' % len(sigs))
            kernels.append(path)
        if a.read_write_images:
            sigs = [g for g in header_signatures(a.clang, a.resource_dir, tmp, GENERIC_FLAGS,
                                                 every_image=True)
                    # Depth images (cl_khr_depth_images, which Kiln does
                    # not report) opencl-c.h declares for 3.0 regardless.
                    if any(p.startswith('read_write') for p in g[2]) and
                    not any('_depth_t' in p or '_msaa' in p for p in g[2])]
            path = os.path.join(tmp, 'rw_image_builtins.cl')
            with open(path, 'w') as f:
                f.write(all_builtins_kernel(sigs))
            print('generated calls to %d read_write image builtin overloads of OpenCL C 3.0'
                  % len(sigs))
            kernels.append(path)
        for k in kernels:
            extra = (GENERIC_FLAGS if k.endswith('generic_builtins.cl') or
                     k.endswith('rw_image_builtins.cl') else ())
            missing = undefined_builtins(a.clang, a.llvm_link, a.llvm_nm, a.resource_dir,
                                         a.library, k, tmp, extra=extra)
            name = os.path.basename(k)
            if missing:
                failed = True
                print('%s: %d undefined builtins' % (name, len(missing)))
                for s in sorted(missing):
                    print('  ' + s)
            else:
                print('%s: all builtins resolve' % name)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
