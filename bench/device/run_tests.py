#!/usr/bin/env python3
"""Runs meson's suite "cl" and piglit's OpenCL profile against one Kiln
library on one Kiln driver, from what bench/device/pack_tests.sh packed
(run_tests.sh unpacks it and calls this).

    run_tests.py --root TCARRY --kiln-lib LIB [--devices cuda] [--out DIR]
                 [-j N] [--timeout S] [--only kiln|piglit] [--filter RE]
                 [--tar-logs] [--env NAME=VALUE ...]

Only Kiln is registered: a vendors directory holding kiln.icd alone
(OCL_ICD_VENDORS; the carried ocl-icd 2.3.1 reads nothing else) and
OCL_ICD_FILENAMES set to the library exactly, for a loader that reads it.
KILN_DEVICES picks the driver; piglit is pointed at the platform "Kiln".
The caller's OCL_ICD_*, KILN_* and PIGLIT_* variables are not passed on;
--env sets a variable for every test (KILN_DEBUG=pipe, ...).
The run is refused (exit 2) unless the loader shows exactly one platform,
Kiln, with a device.

Statuses.  meson tests: exit 0 pass, 77 skip, killed by a signal crash,
past the timeout timeout, anything else fail (meson's rules).  piglit
tests: as `piglit run` decides them (framework/test/base.py,
results.py): the PIGLIT: {"result"...} and {"subtest"...} lines of
stdout, the worst subtest as the test's result, a signal is a crash, a
non-zero exit turns a test result of pass into warn and anything else into
fail, past the timeout is timeout.

Writes to DIR: summary.txt (counts per status, every test that did not
pass), results.json (the piglit tests in piglit's results format, for
tests/piglit/compare.py), kiln.json (the meson tests), and each test's
output under logs/ (or only as logs.tar.xz with --tar-logs, for the
device tool's $OUT, which brings back 8 files).
Exit status: 0 when the run was made, whatever the tests gave; 2 when it
could not be.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

# piglit's ordering of statuses (framework/status.py): max() over the
# subtests compares (fraction[1], value); skip and notrun rank lowest.
PIGLIT_KEY = {'notrun': (0, 0), 'skip': (0, 0), 'pass': (1, 0),
              'warn': (1, 10), 'dmesg-warn': (1, 20), 'fail': (1, 30),
              'dmesg-fail': (1, 40), 'timeout': (1, 50), 'crash': (1, 60),
              'incomplete': (1, 100)}
KEEP = 8192     # characters of stdout/stderr kept in the json files


def worst(statuses):
    best = None
    for s in statuses:             # the first of equals wins, as max() does
        if best is None or PIGLIT_KEY.get(s, (1, 100)) > PIGLIT_KEY.get(best, (1, 100)):
            best = s
    return best


def piglit_status(rc, out, timed_out):
    """Returns (status, {subtest: status}) as piglit would record them."""
    if timed_out:
        return 'timeout', {}
    raw = 'notrun'
    subtests = collections.OrderedDict()
    for line in out.split('\n'):
        if not line.startswith('PIGLIT:'):
            continue
        try:
            d = json.loads(line[8:])
        except ValueError:
            continue
        if 'enumerate subtests' in d:
            for n in d['enumerate subtests']:
                subtests[n] = 'notrun'
        elif 'result' in d:
            raw = d['result']
        elif 'subtest' in d:
            subtests.update(d['subtest'])
    if raw == 'skip' and subtests:
        for k, v in subtests.items():
            if v == 'notrun':
                subtests[k] = 'skip'

    def result():
        if subtests and raw != 'crash':
            return worst(subtests.values())
        return raw
    if rc < 0:
        raw = 'crash'
        for k, v in subtests.items():
            if v == 'notrun':
                subtests[k] = 'crash'
                break
    elif rc != 0:
        # Sets the test's own result; with subtests the worst of them still
        # decides (piglit does the same; compare.py then counts it a fail).
        raw = 'warn' if result() == 'pass' else 'fail'
    return result(), subtests


def meson_status(rc, timed_out):
    if timed_out:
        return 'timeout'
    if rc == 0:
        return 'pass'
    if rc == 77:
        return 'skip'
    if rc < 0:
        return 'crash'
    return 'fail'


def fill(s, places):
    for k, v in places.items():
        s = s.replace(k, v)
    return s


def run_one(job, base_env, timeout_cap):
    env = dict(base_env)
    env.update(job.get('env', {}))
    timeout = job['timeout'] if timeout_cap <= 0 else min(job['timeout'], timeout_cap)
    os.makedirs(job['work'], exist_ok=True)
    start = time.time()
    timed_out = False
    try:
        p = subprocess.Popen(job['cmd'], cwd=job['cwd'], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return dict(job, rc=127, out='', err='cannot run: %s\n' % e,
                    start=start, end=time.time(), timed_out=False)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    end = time.time()
    return dict(job, rc=p.returncode, out=out.decode('utf-8', 'replace'),
                err=err.decode('utf-8', 'replace'), start=start, end=end,
                timed_out=timed_out, timeout=timeout)


def safe(name):
    return re.sub(r'[^A-Za-z0-9._-]', '_', name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', required=True, help='the unpacked tcarry/')
    ap.add_argument('--kiln-lib', required=True)
    ap.add_argument('--devices', default='cuda', help='KILN_DEVICES')
    ap.add_argument('--out', default='/tmp/kiln-tests-out')
    ap.add_argument('-j', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=float, default=60,
                    help='per-test limit in seconds (default 60; a meson test '
                         'keeps its own limit when that is shorter); 0: '
                         "meson's own limits, 60 s for piglit")
    ap.add_argument('--only', choices=('kiln', 'piglit'))
    ap.add_argument('--filter', help='run only tests whose name matches')
    ap.add_argument('--tar-logs', action='store_true')
    ap.add_argument('--env', action='append', default=[], metavar='NAME=VALUE',
                    help='set for every test (repeatable), e.g. KILN_DEBUG=pipe '
                         'to see the CUDA errors behind a failure')
    a = ap.parse_args()
    extra = dict(e.split('=', 1) for e in a.env if '=' in e)

    root = os.path.realpath(a.root)
    lib = os.path.realpath(a.kiln_lib)
    if not os.path.isfile(lib):
        sys.exit('run_tests: no Kiln library at %s' % lib)
    out_dir = os.path.realpath(a.out)
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    work = tempfile.mkdtemp(prefix='kiln-tests-')
    vendors = os.path.join(work, 'vendors')
    os.makedirs(vendors)
    with open(os.path.join(vendors, 'kiln.icd'), 'w') as f:
        f.write(lib + '\n')

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OCL_ICD_', 'KILN_', 'PIGLIT_'))}
    env.update({
        'OCL_ICD_VENDORS': vendors,
        'OCL_ICD_FILENAMES': lib,
        'LD_LIBRARY_PATH': os.path.join(root, 'lib') +
                           (':' + os.environ['LD_LIBRARY_PATH']
                            if os.environ.get('LD_LIBRARY_PATH') else ''),
        'KILN_DEVICES': a.devices,
        # A compile cache of the run's own: every build compiles.
        'KILN_CACHE_DIR': os.path.join(work, 'kiln-cache'),
        'PIGLIT_CL_PLATFORM': 'Kiln',
        'PATH': os.path.join(root, 'bin') + ':' + os.environ.get('PATH', ''),
    })
    env.update(extra)

    # --- which platform and device answer -------------------------------
    p = subprocess.run([os.path.join(root, 'bin', 'cl_devices')], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    shown = p.stdout.decode('utf-8', 'replace')
    header = ('== KILN_DEVICES=%s, library %s\n%s' % (a.devices, lib, shown))
    print(header, end='', flush=True)
    names = re.findall(r'^platform \d+\n  name: (.*)$', shown, re.M)
    if p.returncode != 0 or names != ['Kiln']:
        with open(os.path.join(out_dir, 'summary.txt'), 'w') as f:
            f.write(header + 'run_tests: refused: the loader must show one '
                    'platform, Kiln, with a device\n')
        print('run_tests: refused: the loader must show one platform, Kiln, '
              'with a device', file=sys.stderr)
        return 2

    # --- the tests -------------------------------------------------------
    jobs = []
    flt = re.compile(a.filter) if a.filter else None
    if a.only in (None, 'kiln'):
        kroot = os.path.join(root, 'kiln')
        with open(os.path.join(kroot, 'tests.json')) as f:
            for t in json.load(f):
                if flt and not flt.search(t['name']):
                    continue
                w = os.path.join(work, 'kiln', safe(t['name']))
                places = {'@B@': os.path.join(kroot, 'b'),
                          '@S@': os.path.join(kroot, 's'),
                          '@KILN_LIB@': lib, '@KILN_VENDORS@': vendors,
                          '@WORK@': w}
                jobs.append({'kind': 'kiln', 'name': t['name'],
                             'cmd': [fill(c, places) for c in t['cmd']],
                             'env': {k: fill(v, places) for k, v in t['env'].items()},
                             'cwd': fill(t['cwd'], places), 'work': w,
                             'timeout': t['timeout']})
    if a.only in (None, 'piglit'):
        proot = os.path.join(root, 'piglit')
        with open(os.path.join(proot, 'tests.json')) as f:
            for t in json.load(f):
                if flt and not flt.search(t['name']):
                    continue
                jobs.append({'kind': 'piglit', 'name': t['name'],
                             'cmd': [c.replace('@P@', proot) for c in t['cmd']],
                             'cwd': proot, 'timeout': 60,
                             'work': os.path.join(work, 'piglit')})
    cap = a.timeout
    print('== %d tests, %d at once, limit %s s each' %
          (len(jobs), a.j, cap if cap > 0 else "meson's / 60"), flush=True)
    t0 = time.time()
    done = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        futs = [ex.submit(run_one, j, env, cap) for j in jobs]
        for fut in concurrent.futures.as_completed(futs):
            done.append(fut.result())
    wall = time.time() - t0

    # --- results ---------------------------------------------------------
    log_dir = os.path.join(out_dir, 'logs') if not a.tar_logs else \
        os.path.join(work, 'logs')
    counts = {'kiln': collections.Counter(), 'piglit': collections.Counter()}
    bad = {'kiln': [], 'piglit': []}
    piglit_json, kiln_json = {}, {}
    for r in sorted(done, key=lambda r: (r['kind'], r['name'])):
        if r['kind'] == 'kiln':
            st, subs = meson_status(r['rc'], r['timed_out']), {}
        else:
            st, subs = piglit_status(r['rc'], r['out'], r['timed_out'])
        counts[r['kind']][st] += 1
        if st != 'pass':
            why = 'exit %s' % r['rc'] if not r['timed_out'] else \
                'after %.0f s' % r['timeout']
            bad[r['kind']].append('%-8s %s (%s)' % (st, r['name'], why))
        rec = {'result': st, 'subtests': dict(subs), 'returncode': r['rc'],
               'out': r['out'][-KEEP:], 'err': r['err'][-KEEP:],
               'command': ' '.join(r['cmd']),
               'time': {'start': r['start'], 'end': r['end']}}
        (kiln_json if r['kind'] == 'kiln' else piglit_json)[r['name']] = rec
        d = os.path.join(log_dir, r['kind'])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, safe(r['name']) + '.log'), 'w') as f:
            f.write('$ %s\ncwd %s\nenv %s\nstatus %s, exit %s, %.1f s%s\n'
                    % (' '.join(r['cmd']), r['cwd'], json.dumps(r.get('env', {})),
                       st, r['rc'], r['end'] - r['start'],
                       ' (timed out)' if r['timed_out'] else ''))
            for k, v in subs.items():
                f.write('subtest %s: %s\n' % (k, v))
            f.write('--- stdout\n%s\n--- stderr\n%s' % (r['out'], r['err']))
    if a.tar_logs:
        with tarfile.open(os.path.join(out_dir, 'logs.tar.xz'), 'w:xz') as tf:
            tf.add(log_dir, arcname='logs')
    with open(os.path.join(out_dir, 'results.json'), 'w') as f:
        json.dump({'name': 'kiln-%s' % a.devices, 'tests': piglit_json}, f)
    with open(os.path.join(out_dir, 'kiln.json'), 'w') as f:
        json.dump({'tests': kiln_json}, f)

    lines = [header.rstrip('\n'), '== %d tests in %.0f s, %d at once' %
             (len(done), wall, a.j)]
    for kind, title in (('kiln', "meson suite cl"), ('piglit', "piglit profile cl")):
        c = counts[kind]
        if not c:
            continue
        lines.append('%s: %d tests: %s' % (title, sum(c.values()), ', '.join(
            '%s %d' % (s, c[s]) for s in ('pass', 'fail', 'skip', 'warn',
                                          'crash', 'timeout', 'notrun') if c[s])))
    for kind in ('kiln', 'piglit'):
        if bad[kind]:
            lines.append('-- %s tests that did not pass:' % kind)
            lines.extend('   ' + b for b in bad[kind])
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(out_dir, 'summary.txt'), 'w') as f:
        f.write(text)
    print('\n'.join(lines[1:]))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
