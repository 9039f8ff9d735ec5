#!/usr/bin/python3
"""Compare a piglit results directory with tests/piglit/expected.txt.

    compare.py [--allow-missing] EXPECTED RESULTS
    compare.py --write NEW_EXPECTED EXPECTED RESULTS

RESULTS is piglit's results directory (results.json[.bz2|.gz|.xz], or the
per-test files of a run that was interrupted) or a results file.

EXPECTED has one line per test of the profile; '#' starts a comment line:

    <status> <test name>
    <status> <test name> # <reason>
    <status> <test name> :: <subtest name> [# <reason>]

<status> is pass, skip, fail, warn, crash, timeout (or notrun, for a
subtest after a crash).  Every non-pass test
line needs a one-line reason.  Subtest lines are kept only for tests whose
subtests do not all share the test's status (a test that fails one subtest
of twelve, a test that crashes after all its subtests passed): they catch
a second subtest breaking in a test that already fails.  When the test
crashes or times out, its subtests that did not report are not counted
missing (the crash cut them short).

Ranks: pass < skip = fail = warn < crash = timeout < missing.  The gate
fails (exit 1) when a test or listed subtest
  - ranks worse than expected (a regression),
  - changes to another status of the same rank (skip <-> fail,
    crash <-> timeout): its reason in EXPECTED no longer holds,
  - is missing from the results (unless --allow-missing, for runs filtered
    with -t/-x), or is new and does not pass.
Improvements are printed and do not fail; update EXPECTED for them.
Exit status 2: bad arguments, unreadable results or a malformed EXPECTED.

--write NEW_EXPECTED writes the results in EXPECTED's format, keeping the
reasons of lines whose status did not change; other non-pass lines get
'TODO: reason', which the gate refuses until someone writes the reason.
"""
import argparse
import bz2
import collections
import gzip
import json
import lzma
import os
import re
import sys

RANK = {'pass': 0, 'skip': 1, 'fail': 1, 'warn': 1, 'dmesg-warn': 1,
        'dmesg-fail': 1, 'crash': 2, 'timeout': 2, 'incomplete': 2,
        'notrun': 3, 'missing': 3}
STATUSES = ('pass', 'skip', 'fail', 'warn', 'crash', 'timeout', 'notrun')
SUB_SEP = ' :: '
REASON_SEP = ' # '
TODO = 'TODO: reason'


class Error(Exception):
    pass


class Result(object):
    """One test of a piglit run."""

    def __init__(self, name, data):
        self.name = name
        self.status = data.get('result', 'notrun')
        self.subtests = {k: v for k, v in (data.get('subtests') or {}).items()
                         if k != '__type__'}
        self.returncode = data.get('returncode')
        self.out = data.get('out') or ''
        self.err = data.get('err') or ''
        self.command = data.get('command') or ''
        self.time = 0.0
        t = data.get('time') or {}
        if 'start' in t and 'end' in t:
            self.time = t['end'] - t['start']
        # piglit reports the worst subtest as the test's result, even when
        # the process then exited non-zero (a crash at exit that is not a
        # signal, an ASan report): count that as a failure.
        if self.status in ('pass', 'skip') and self.returncode not in (0, None):
            self.status = 'fail'
            self.note = 'exit status %s after all subtests passed' % \
                self.returncode
        else:
            self.note = ''


def _open(path):
    opener = {'.bz2': bz2.open, '.gz': gzip.open, '.xz': lzma.open}.get(
        os.path.splitext(path)[1], open)
    return opener(path, 'rt')


def load_results(path):
    """Returns ({test name: Result}, complete?)."""
    complete = True
    if os.path.isdir(path):
        for name in ('results.json', 'results.json.bz2', 'results.json.gz',
                     'results.json.xz'):
            p = os.path.join(path, name)
            if os.path.exists(p):
                with _open(p) as f:
                    tests = json.load(f)['tests']
                break
        else:
            # An interrupted run: piglit's json backend keeps one file per
            # finished test in tests/ until the run ends.
            tdir = os.path.join(path, 'tests')
            if not os.path.isdir(tdir):
                raise Error('no piglit results in %s' % path)
            complete = False
            tests = {}
            for fn in os.listdir(tdir):
                if fn.endswith('.json'):
                    with open(os.path.join(tdir, fn)) as f:
                        try:
                            tests.update(json.load(f))
                        except ValueError:
                            pass   # the test being written when killed
    else:
        with _open(path) as f:
            tests = json.load(f)['tests']
    return {n: Result(n, d) for n, d in tests.items()}, complete


def load_expected(path):
    """Returns {test: (status, reason, {subtest: (status, reason)})}."""
    exp = collections.OrderedDict()
    errors = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            where = '%s:%d' % (path, n)
            status, _, rest = line.partition(' ')
            if status not in STATUSES:
                errors.append('%s: unknown status %r' % (where, status))
                continue
            rest = rest.strip()
            name, _, reason = rest.partition(REASON_SEP)
            name, reason = name.strip(), reason.strip()
            test, _, sub = name.partition(SUB_SEP)
            if not test:
                errors.append('%s: no test name' % where)
                continue
            if sub:
                if test not in exp:
                    errors.append('%s: subtest line before its test %r' %
                                  (where, test))
                    continue
                if sub in exp[test][2]:
                    errors.append('%s: duplicate subtest' % where)
                exp[test][2][sub] = (status, reason)
                continue
            if test in exp:
                errors.append('%s: duplicate test %r' % (where, test))
            if status != 'pass' and (not reason or reason.startswith('TODO')):
                errors.append('%s: %s without a reason: %s' %
                              (where, status, test))
            exp[test] = (status, reason, collections.OrderedDict())
    if errors:
        raise Error('\n'.join(errors))
    return exp


def rank(status):
    return RANK.get(status, RANK['missing'])


def classify(expected, got):
    """'same', 'better', 'worse' or 'changed'."""
    if got == expected:
        return 'same'
    if rank(got) > rank(expected):
        return 'worse'
    if rank(got) < rank(expected):
        return 'better'
    return 'changed'


def tail(text, lines):
    rows = [l for l in text.strip().splitlines() if l.strip()]
    return rows[-lines:]


def compare(exp, res, allow_missing):
    """Returns (bad, good): lists of (name, expected, got, reason, Result)."""
    bad, good = [], []

    def check(name, e, reason, got, r):
        kind = classify(e, got)
        if kind == 'same':
            return
        row = (name, e, got, reason, r)
        if kind == 'better':
            good.append(row)
        else:
            bad.append(row)

    for test in sorted(set(exp) | set(res)):
        r = res.get(test)
        if test not in exp:
            if r.status != 'pass':
                bad.append((test, 'new', r.status, 'not in expected.txt', r))
            else:
                good.append((test, 'new', 'pass', 'not in expected.txt', r))
            continue
        e, reason, subs = exp[test]
        if r is None:
            if not allow_missing:
                bad.append((test, e, 'missing', reason, None))
            continue
        check(test, e, reason, r.status, r)
        if not subs or r.status == 'pass':
            continue
        # A crash or timeout cuts the subtests after it short, and where a
        # test corrupts the heap the abort comes at a different subtest from
        # run to run: then only the subtests that did report are compared.
        cut_short = r.status in ('crash', 'timeout')
        for sub in sorted(set(subs) | set(r.subtests)):
            name = test + SUB_SEP + sub
            got = r.subtests.get(sub, 'missing')
            if got == 'missing' and cut_short:
                continue
            if sub not in subs:
                if got != 'pass':
                    bad.append((name, 'new', got, 'not in expected.txt', r))
                continue
            se, sreason = subs[sub]
            check(name, se, sreason or reason, got, r)
    return bad, good


def write_expected(path, exp, res, header):
    n_todo = 0
    with open(path, 'w') as f:
        f.write(header)
        for test in sorted(res):
            r = res[test]
            old = exp.get(test, (None, '', {}))
            reason = ''
            if r.status != 'pass':
                reason = old[1] if old[0] == r.status and old[1] else TODO
                n_todo += reason == TODO
            for name in [test] + list(r.subtests):
                if SUB_SEP in name or REASON_SEP in name or \
                        name != name.strip():
                    raise Error('cannot write the name %r (contains %r or '
                                '%r, or spaces at an end)' %
                                (name, SUB_SEP, REASON_SEP))
            for st in [r.status] + list(r.subtests.values()):
                if st not in STATUSES:
                    raise Error('%s: status %r cannot be expected' %
                                (test, st))
            f.write(('%-7s %s%s' % (r.status, test, reason and
                                    REASON_SEP + reason)).rstrip() + '\n')
            if r.subtests and set(r.subtests.values()) != {r.status}:
                for sub in sorted(r.subtests):
                    st = r.subtests[sub]
                    osub = old[2].get(sub, (None, ''))
                    sreason = osub[1] if osub[0] == st else ''
                    f.write(('%-7s %s%s%s%s' % (st, test, SUB_SEP, sub,
                                                sreason and REASON_SEP + sreason)
                             ).rstrip() + '\n')
    return n_todo


def header_of(path):
    """The leading comment block of an expected file, to keep it."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                if not line.startswith('#'):
                    break
                out.append(line)
    except OSError:
        pass
    return ''.join(out)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('expected')
    ap.add_argument('results')
    ap.add_argument('--allow-missing', action='store_true',
                    help='tests absent from the results are not regressions '
                         '(a run filtered with -t/-x)')
    ap.add_argument('--write', metavar='NEW_EXPECTED',
                    help='write the results as a new expected file')
    a = ap.parse_args()

    try:
        res, complete = load_results(a.results)
        if a.write:
            exp = load_expected(a.expected) if os.path.exists(a.expected) \
                else {}
    except (Error, OSError, ValueError, KeyError) as e:
        print('compare.py: %s' % e, file=sys.stderr)
        return 2

    if a.write:
        if not complete:
            print('compare.py: %s is an interrupted run; not writing %s' %
                  (a.results, a.write), file=sys.stderr)
            return 2
        try:
            todo = write_expected(a.write, exp, res, header_of(a.expected))
        except Error as e:
            print('compare.py: %s' % e, file=sys.stderr)
            return 2
        print('wrote %d tests to %s; %d non-pass lines need a reason (%s)' %
              (len(res), a.write, todo, TODO))
        return 0

    try:
        exp = load_expected(a.expected)
    except (Error, OSError) as e:
        print('compare.py: %s' % e, file=sys.stderr)
        return 2

    # Every test must have run on Kiln (piglit runs on every platform the
    # loader shows unless PIGLIT_CL_PLATFORM narrows it).
    platforms = set()
    for r in res.values():
        platforms.update(re.findall(r'^#\s+Platform: (.*)$', r.out, re.M))
    if platforms - {'Kiln'}:
        print('compare.py: results include other platforms: %s' %
              ', '.join(sorted(platforms - {'Kiln'})), file=sys.stderr)
        return 2

    bad, good = compare(exp, res, a.allow_missing)

    counts = collections.Counter(r.status for r in res.values())
    nsub = sum(len(r.subtests) or 1 for r in res.values())
    print('piglit: %d tests (%d counting subtests)%s: %s' % (
        len(res), nsub, '' if complete else ' [INTERRUPTED RUN]',
        ', '.join('%s %d' % (k, counts[k]) for k in sorted(counts))))
    if not a.allow_missing:
        print('expected: %d tests: %s' % (len(exp), ', '.join(
            '%s %d' % (k, v) for k, v in sorted(collections.Counter(
                e[0] for e in exp.values()).items()))))

    if good:
        print('\nIMPROVED (update %s): %d' % (a.expected, len(good)))
        for name, e, got, why, r in good:
            print('  %s: %s -> %s' % (name, e, got))
    if bad:
        print('\nREGRESSED or CHANGED: %d' % len(bad))
        shown = 0
        for name, e, got, why, r in bad:
            print('  %s: expected %s, got %s%s' % (
                name, e, got, ' (%s)' % why if why and e != 'pass' else ''))
            if r is None or SUB_SEP in name:
                continue
            if r.note:
                print('      %s' % r.note)
            failed = [s for s, st in r.subtests.items() if st != 'pass']
            if failed:
                print('      non-pass subtests: %s' % ', '.join(
                    '%s (%s)' % (s, r.subtests[s]) for s in failed[:8]))
            if shown < 40:
                shown += 1
                print('      command: %s' % r.command)
                for line in tail(r.out, 6) + tail(r.err, 4):
                    print('      | %s' % line[:200])
        print('\nFAILED: %d regressions against %s (results: %s)' %
              (len(bad), a.expected, a.results))
        return 1
    print('\nOK: no regressions against %s' % a.expected)
    return 0


if __name__ == '__main__':
    sys.exit(main())
