#!/usr/bin/env python3
"""Every built-in problem with radau5, radau and bdf at rtol = atol = 1e-4 ... 1e-10: the runs
that do not end in success (or at a terminal event: the moon problems), with their status.

    /usr/bin/python3 bench/robustness_pass.py build/apps/daekit [--methods radau5,radau,bdf]
        [--skip heat2d,air-pipe-1000,pendulum-long] [--compare OLD_BINARY]

Each run is `daekit solve P --method M --rtol T --atol T --json` (the problem's atol_scale
applies). A run the command refuses before integrating (bdf on index 3, a problem the build
does not have) is listed as "refused". With --compare, the same runs of a second build are
listed beside them, so that a change of status between two builds stands out. Expected
non-successes: impasse stops at its impasse point (step_size_too_small), bdf refuses index 3.
"""
import argparse
import json
import subprocess
import sys

TOLERANCES = ["1e-4", "1e-5", "1e-6", "1e-7", "1e-8", "1e-9", "1e-10"]


def problems(binary):
    out = subprocess.run([binary, "list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def status(binary, problem, method, tol):
    try:
        out = subprocess.run([binary, "solve", problem, "--method", method, "--rtol", tol,
                              "--atol", tol, "--json"], capture_output=True, text=True,
                             timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    try:
        return json.loads(out.stdout)["status"]
    except (ValueError, KeyError):
        return "refused"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--methods", default="radau5,radau,bdf")
    ap.add_argument("--skip", default="heat2d,air-pipe-1000,pendulum-long")
    ap.add_argument("--compare")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    runs = failures = 0
    print(f"{'problem':22s} {'method':8s} {'rtol':6s} {'status':28s}"
          + (" other build" if args.compare else ""))
    for p in problems(args.binary):
        if p in skip:
            continue
        for m in args.methods.split(","):
            for t in TOLERANCES:
                runs += 1
                s = status(args.binary, p, m, t)
                other = status(args.compare, p, m, t) if args.compare else None
                done = ("success", "terminal_event")
                if s not in done or (other is not None and other not in done):
                    failures += s not in done
                    print(f"{p:22s} {m:8s} {t:6s} {s:28s}" + (f" {other}" if other else ""),
                          flush=True)
    print(f"{runs} runs, {failures} not successful")
    print("rerun: /usr/bin/python3 bench/robustness_pass.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
