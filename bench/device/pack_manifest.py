#!/usr/bin/python3
"""Writes the test lists that run_tests.py reads on the device machine,
and copies what each test needs, for bench/device/pack_tests.sh.

    pack_manifest.py kiln BUILDDIR SRCROOT INTROSPECT_JSON DEST
    pack_manifest.py piglit PIGLIT_ROOT DEST

kiln: every test of meson's suite "cl" (from `meson introspect --tests`),
with its arguments, environment and timeout as `meson test` would run it.
Its command runs in the build directory (meson's default workdir), so the
build tree is mirrored under DEST/b and the source files it names under
DEST/s.  Paths are written with placeholders that run_tests.py fills in:
  @B@ the mirrored build dir, @S@ the mirrored source dir, @KILN_LIB@ the
  carried libKilnOpenCL.so.1, @KILN_VENDORS@ a directory holding only
  kiln.icd, @WORK@ a scratch directory of the test's own.
OCL_ICD_VENDORS and LD_LIBRARY_PATH are dropped: the runner sets them.

piglit: every test of the installed piglit's profile "cl" (tests/cl.xml.gz,
the list `piglit run cl` runs), with its command line relative to the
piglit root (@P@).
"""
import gzip
import json
import os
import shutil
import sys
import xml.etree.ElementTree as ET


def kiln(build, src, introspect, dest):
    build = os.path.realpath(build)
    src = os.path.realpath(src)
    lib_prefix = os.path.join(build, 'src', 'libKilnOpenCL.so')
    vendors = os.path.join(build, 'etc', 'OpenCL', 'vendors')
    with open(introspect) as f:
        tests = json.load(f)
    out = []

    def copy(path, root, mark):
        rel = os.path.relpath(path, root)
        to = os.path.join(dest, mark, rel)
        os.makedirs(os.path.dirname(to), exist_ok=True)
        shutil.copy2(path, to)
        return '@%s@/%s' % (mark.upper(), rel)

    def value(v):
        if v.startswith('/') or v.startswith('..'):
            p = os.path.realpath(os.path.join(build, v))
        else:
            p = os.path.join(build, v)
            if not v or not os.path.exists(p):
                return v           # a plain word ('on', 'off', 'bounds') or ''
            # A path relative to the build dir: the test runs there too.
            p = os.path.realpath(p)
            copy(p, build, 'b')
            return v
        if p.startswith(lib_prefix):
            return '@KILN_LIB@'
        if p == os.path.realpath(vendors):
            return '@KILN_VENDORS@'
        if p.startswith(build + '/'):
            if os.path.isfile(p):
                return copy(p, build, 'b')
            # A directory the test fills (a compile cache): a fresh one.
            return '@WORK@/' + os.path.relpath(p, build)
        if p.startswith(src + '/') and os.path.isfile(p):
            return copy(p, src, 's')
        return v

    for t in tests:
        if not any(s == 'cl' or s.endswith(':cl') for s in t['suite']):
            continue
        cmd = list(t['cmd'])
        if os.path.basename(cmd[0]).startswith('python'):
            cmd[0] = 'python3'     # a pyenv shim here; the machine's own there
        else:
            cmd[0] = value(cmd[0])
        cmd[1:] = [value(a) for a in cmd[1:]]
        env = {k: value(v) for k, v in t['env'].items()
               if k not in ('OCL_ICD_VENDORS', 'LD_LIBRARY_PATH')}
        out.append({'name': t['name'], 'cmd': cmd, 'env': env,
                    'timeout': t['timeout'], 'cwd': '@B@'})
    # clinfo.sh reads the CL version from ../../include next to itself.
    ver = os.path.join(src, 'include', 'kiln', 'cl_version.h')
    if os.path.isfile(ver):
        copy(ver, src, 's')
    with open(os.path.join(dest, 'tests.json'), 'w') as f:
        json.dump(out, f, indent=1)
    print('kiln: %d tests of suite cl' % len(out))


def piglit(root, dest):
    with gzip.open(os.path.join(root, 'tests', 'cl.xml.gz')) as f:
        tree = ET.parse(f)
    out = []
    for t in tree.getroot():
        opts = {o.get('name'): o.get('value') for o in t.findall('option')}
        if t.get('type') == 'cl':
            # "['cl-custom-run-simple-kernel']": a Python list literal
            argv = json.loads(opts['command'].replace("'", '"'))
            argv[0] = '@P@/bin/' + argv[0]
        elif t.get('type') == 'cl_prog':
            argv = ['@P@/bin/cl-program-tester',
                    '@P@/' + opts['filename'].strip("'")]
        else:
            raise SystemExit('unknown piglit test type %r' % t.get('type'))
        for a in argv:
            p = os.path.join(root, a.replace('@P@/', '', 1))
            if a.startswith('@P@/') and not os.path.exists(p):
                raise SystemExit('piglit test %s: no %s' % (t.get('name'), p))
        out.append({'name': t.get('name'), 'cmd': argv})
    with open(os.path.join(dest, 'tests.json'), 'w') as f:
        json.dump(out, f, indent=1)
    print('piglit: %d tests of profile cl' % len(out))


if __name__ == '__main__':
    if sys.argv[1:2] == ['kiln'] and len(sys.argv) == 6:
        kiln(*sys.argv[2:])
    elif sys.argv[1:2] == ['piglit'] and len(sys.argv) == 4:
        piglit(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
