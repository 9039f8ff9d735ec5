#!/usr/bin/env python3
"""KILN_TRACE (docs/trace.md): runs tests/cl/exec/trace.c with the variable
set and checks that the file is JSON that chrome://tracing and Perfetto
accept, with the right events: one "X" event per command, on one row per
queue, the kernel's name and sizes, the bytes of transfers, timestamps in
order, and at exit the objects the program leaked.  Then again with the
program leaving through _exit(): the file must still parse.  Then with
KILN_TRACE=1: the file is kiln-trace-<pid>.json in the current directory,
named on stderr at exit.

    check_trace.py <trace program>
"""
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(exe, mode, path):
    env = dict(os.environ, KILN_TRACE=path)
    r = subprocess.run([exe, mode], env=env, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{mode}: exit status {r.returncode}: {r.stdout}{r.stderr}")
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text), r.stderr
    except ValueError as e:
        check(False, f"{mode}: not JSON ({e}):\n{text[-2000:]}")
        return None, r.stderr


def run_default_name(exe, tmp):
    """KILN_TRACE=1 in the directory tmp: returns the file's JSON."""
    env = dict(os.environ, KILN_TRACE="1")
    p = subprocess.Popen([exe, "leak"], env=env, cwd=tmp, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 0, f"KILN_TRACE=1: exit status {p.returncode}: {out}{err}")
    name = f"kiln-trace-{p.pid}.json"
    check(os.listdir(tmp) == [name], f"KILN_TRACE=1: files {os.listdir(tmp)}, want [{name}]")
    check(re.search(r"^kiln: KILN_TRACE: trace written to " + re.escape(name) + "$", err,
                    re.MULTILINE) is not None, f"KILN_TRACE=1: {name} named on stderr:\n{err}")
    try:
        with open(os.path.join(tmp, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"KILN_TRACE=1: {name}: {e}")
        return None


def check_common(doc, mode):
    events = doc.get("traceEvents")
    check(isinstance(events, list) and events, f"{mode}: traceEvents is a non-empty list")
    for e in events:
        check(e.get("ph") in ("X", "B", "E", "i", "M"), f"{mode}: phase of {e}")
        check(isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int),
              f"{mode}: pid/tid of {e}")
        if e["ph"] != "M":
            check(isinstance(e.get("ts"), (int, float)), f"{mode}: ts of {e}")
    xs = [e for e in events if e["ph"] == "X"]
    for e in xs:
        a = e["args"]
        check(e["dur"] >= 0, f"{mode}: negative duration {e}")
        check(a["queued_us"] <= a["submit_us"] <= a["start_us"] <= a["end_us"],
              f"{mode}: QUEUED <= SUBMIT <= START <= END in {e}")
        check(abs(e["ts"] - a["start_us"]) < 0.01 and
              abs(e["ts"] + e["dur"] - a["end_us"]) < 0.01, f"{mode}: ts/dur are START/END {e}")
        check(a["status"] == 0, f"{mode}: status {e}")
    by = {}
    for e in xs:
        by.setdefault(e["args"]["command"], []).append(e)
    for cmd in ("WriteBuffer", "NDRangeKernel", "CopyBuffer", "ReadBuffer"):
        check(len(by.get(cmd, [])) == 1, f"{mode}: one {cmd} event, got {len(by.get(cmd, []))}")
    # The application's marker, and those clFinish may enqueue itself.
    check(len(by.get("Marker", [])) >= 1, f"{mode}: a Marker event")
    if len(by.get("NDRangeKernel", [])) == 1:
        k = by["NDRangeKernel"][0]
        check(k["name"] == "scale" and k["cat"] == "kernel", f"{mode}: kernel event {k}")
        check(k["args"]["kernel"] == "scale", f"{mode}: kernel name in args {k}")
        check(k["args"]["work_dim"] == 2 and k["args"]["global"] == [64, 16] and
              k["args"]["local"] == [16, 2], f"{mode}: sizes {k}")
        if len(by.get("CopyBuffer", [])) == 1:
            c = by["CopyBuffer"][0]
            check(c["tid"] != k["tid"], f"{mode}: the two queues have two rows")
            check(c["args"]["start_us"] >= k["args"]["end_us"],
                  f"{mode}: the copy waited for the kernel on the other queue")
    for cmd in ("WriteBuffer", "CopyBuffer", "ReadBuffer"):
        for e in by.get(cmd, []):
            check(e["args"]["bytes"] == 4096, f"{mode}: {cmd} moved 4096 bytes: {e}")
    names = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    check(len(names) == 2, f"{mode}: two queue rows named, got {names}")
    return events


def main():
    exe = os.path.abspath(sys.argv[1])  # KILN_TRACE=1 runs it in another directory
    with tempfile.TemporaryDirectory() as tmp:
        doc, stderr = run(exe, "leak", os.path.join(tmp, "leak.json"))
        if doc:
            events = check_common(doc, "leak")
            leaks = [e for e in events if e["ph"] == "i" and e["cat"] == "leak" and
                     e["name"].startswith("leaked ")]
            types = sorted(e["args"]["type"] for e in leaks)
            want = sorted(["cl_context", "cl_command_queue", "cl_command_queue", "cl_program",
                           "cl_kernel", "cl_mem", "cl_mem", "cl_mem"])
            check(types == want, f"leak: leaked {types}, want {want}")
            check(any(e["args"]["type"] == "cl_mem" and e["args"].get("size") == 1234
                      for e in leaks), "leak: the 1234-byte buffer is listed")
            check(any(e["args"]["type"] == "cl_kernel" and e["args"].get("kernel") == "scale"
                      for e in leaks), "leak: the kernel is listed by name")
            check(all(e["args"]["refcount"] >= 1 for e in leaks), "leak: reference counts")
            exits = [e for e in events if e["name"] == "exit"]
            check(len(exits) == 1 and exits[0]["args"]["leaked_objects"] == len(want),
                  f"leak: exit event {exits}")
            check(stderr.count("KILN_TRACE: leaked") == len(want),
                  f"leak: the leaks are also on the log:\n{stderr}")
        doc, _ = run(exe, "_exit", os.path.join(tmp, "exit.json"))
        if doc:
            events = check_common(doc, "_exit")
            check(not [e for e in events if e["name"] == "exit"], "_exit: no exit handler ran")
    with tempfile.TemporaryDirectory() as tmp:
        doc = run_default_name(exe, tmp)
        if doc:
            events = check_common(doc, "KILN_TRACE=1")
            check(len([e for e in events if e["name"] == "exit"]) == 1,
                  "KILN_TRACE=1: the exit event")
    print("FAILED" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
