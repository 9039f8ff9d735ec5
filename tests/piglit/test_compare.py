#!/usr/bin/env python3
"""Self-test of compare.py, the piglit gate: fake results against a fake
expected file; every case checks the exit status (0 ok, 1 regression,
2 malformed input) and, where it matters, what is printed.

    test_compare.py [PATH_TO_COMPARE_PY]
"""
import json
import os
import subprocess
import sys
import tempfile

COMPARE = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), 'compare.py')

EXPECTED = """\
# header kept by --write
pass    api@a
pass    api@b with spaces
crash   program@c # writes out of bounds
pass    program@c :: only
fail    program@f # a reason
pass    program@f :: sub one
fail    program@f :: sub two
skip    program@s # no images
"""


def test(result, subtests=None, returncode=None, platform='Kiln'):
    if returncode is None:
        returncode = {'pass': 0, 'skip': 0, 'fail': 1, 'crash': -6,
                      'timeout': None}[result]
    subs = dict(subtests or {})
    subs['__type__'] = 'Subtests'
    return {'result': result, 'subtests': subs, 'returncode': returncode,
            'out': '# Running on:\n#   Platform: %s\n' % platform, 'err': '',
            'command': 'cl-fake', 'time': {'start': 0.0, 'end': 1.0}}


def baseline():
    return {
        'api@a': test('pass'),
        'api@b with spaces': test('pass'),
        'program@f': test('fail', {'sub one': 'pass', 'sub two': 'fail'}),
        'program@s': test('skip'),
        'program@c': test('crash', {'only': 'pass'}),
    }


failures = []


def run(tmp, name, tests, want_rc, expected=EXPECTED, args=(), want_out=(),
        layout='file'):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    exp = os.path.join(d, 'expected.txt')
    with open(exp, 'w') as f:
        f.write(expected)
    if layout == 'file':
        with open(os.path.join(d, 'results.json'), 'w') as f:
            json.dump({'tests': tests}, f)
    else:   # an interrupted run: one file per finished test
        os.makedirs(os.path.join(d, 'tests'))
        for i, (k, v) in enumerate(tests.items()):
            with open(os.path.join(d, 'tests', '%d.json' % i), 'w') as f:
                json.dump({k: v}, f)
    p = subprocess.run([sys.executable, COMPARE] + list(args) + [exp, d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    ok = p.returncode == want_rc and all(w in p.stdout for w in want_out)
    print('%-4s %s: exit %d (want %d)' % ('ok' if ok else 'FAIL', name,
                                         p.returncode, want_rc))
    if not ok:
        failures.append(name)
        print('     ' + p.stdout.replace('\n', '\n     '))
    return d


def main():
    tmp = tempfile.mkdtemp(prefix='kiln-piglit-selftest-')

    run(tmp, 'identical', baseline(), 0, want_out=['OK: no regressions'])

    t = baseline(); t['api@a'] = test('fail')
    run(tmp, 'pass-to-fail', t, 1, want_out=['api@a: expected pass, got fail'])

    t = baseline(); t['api@b with spaces'] = test('skip')
    run(tmp, 'pass-to-skip', t, 1)

    t = baseline(); t['api@a'] = test('timeout')
    run(tmp, 'pass-to-timeout', t, 1)

    t = baseline(); t['program@f'] = test('crash', {'sub one': 'pass',
                                                    'sub two': 'fail'})
    run(tmp, 'fail-to-crash', t, 1)

    t = baseline(); t['program@s'] = test('fail')
    run(tmp, 'skip-to-fail (reason no longer holds)', t, 1)

    t = baseline(); t['program@f'] = test('skip')
    run(tmp, 'fail-to-skip (reason no longer holds)', t, 1)

    t = baseline(); t['program@c'] = test('timeout')
    run(tmp, 'crash-to-timeout', t, 1)

    t = baseline(); del t['api@a']
    run(tmp, 'missing test', t, 1, want_out=['api@a: expected pass, got missing'])
    run(tmp, 'missing test, filtered run', t, 0, args=['--allow-missing'])

    t = baseline(); t['api@new'] = test('fail')
    run(tmp, 'new failing test', t, 1)
    t = baseline(); t['api@new'] = test('pass')
    run(tmp, 'new passing test', t, 0)

    t = baseline(); t['program@f'] = test('fail', {'sub one': 'fail',
                                                   'sub two': 'fail'})
    run(tmp, 'second subtest of a failing test breaks', t, 1,
        want_out=['program@f :: sub one: expected pass, got fail'])

    t = baseline(); t['program@f'] = test('fail', {'sub two': 'fail'})
    run(tmp, 'subtest missing', t, 1)

    t = baseline(); t['program@c'] = test('crash', {})
    run(tmp, 'crash earlier than before (subtests cut short)', t, 0)

    t = baseline(); t['program@c'] = test('crash', {'only': 'fail'})
    run(tmp, 'subtest before the crash fails', t, 1)

    t = baseline(); t['program@c'] = test('crash', {'only': 'pass',
                                                    'later': 'pass'})
    run(tmp, 'crash later than before', t, 0)

    t = baseline(); t['program@c'] = test('crash', {'only': 'pass',
                                                    'later': 'fail'})
    run(tmp, 'new failing subtest before the crash', t, 1)

    t = baseline(); t['api@a'] = test('pass', returncode=1)
    run(tmp, 'pass with non-zero exit status', t, 1)

    t = baseline(); t['program@f'] = test('pass', {'sub one': 'pass',
                                                   'sub two': 'pass'})
    run(tmp, 'fail-to-pass is an improvement', t, 0,
        want_out=['IMPROVED', 'program@f: fail -> pass'])

    t = baseline(); t['program@c'] = test('fail', {'only': 'pass'})
    run(tmp, 'crash-to-fail is an improvement', t, 0, want_out=['IMPROVED'])

    t = baseline(); t['api@a'] = test('pass', platform='Portable Computing')
    run(tmp, 'other platform in results', t, 2)

    t = baseline()
    run(tmp, 'non-pass without a reason', t, 2,
        expected=EXPECTED.replace('skip    program@s # no images',
                                  'skip    program@s'))
    run(tmp, 'TODO reason', t, 2,
        expected=EXPECTED.replace('# no images', '# TODO: reason'))
    run(tmp, 'unknown status', t, 2, expected=EXPECTED + 'passed  api@z\n')
    run(tmp, 'duplicate test', t, 2, expected=EXPECTED + 'pass    api@a\n')

    t = baseline(); del t['program@s']
    run(tmp, 'interrupted run', t, 1, layout='dir',
        want_out=['INTERRUPTED', 'program@s: expected skip, got missing'])

    # --write keeps the reasons of unchanged lines and marks new ones TODO.
    t = baseline(); t['api@a'] = test('fail')
    d = run(tmp, 'write', t, 0, args=['--write', os.path.join(tmp, 'new.txt')])
    with open(os.path.join(tmp, 'new.txt')) as f:
        new = f.read()
    want = EXPECTED.replace('pass    api@a', 'fail    api@a # TODO: reason')
    if new != want:
        failures.append('write output')
        print('FAIL write output:\n' + new)
    run(tmp, 'written file with a TODO is refused', t, 2, expected=new)
    run(tmp, 'written file once the reason is there', t, 0,
        expected=new.replace('TODO: reason', 'a new bug'))

    if failures:
        print('%d failed: %s' % (len(failures), ', '.join(failures)))
        return 1
    print('all compare.py cases behave')
    return 0


if __name__ == '__main__':
    sys.exit(main())
