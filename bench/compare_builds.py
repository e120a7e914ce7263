#!/usr/bin/env python3
"""Time two builds of the daekit command against each other, interleaved in one run.

    /usr/bin/python3 bench/compare_builds.py OLD/apps/daekit NEW/apps/daekit [--rounds N]

For every (problem, method) below, the two binaries solve the same problem alternately
(old, new, old, new, ...) N times; the CPU time of the solve itself is read from the JSON
(`cpu_seconds`, which excludes start-up and output) and the medians and their ratio new/old are
printed. Interleaving puts both builds under the same machine load, so the ratio is meaningful on
a shared machine where absolute times are not.

    --transform-tolerances   pass `--option transform_tolerances=true` to every build whose
                             method has that option (`daekit methods METHOD`): RADAU5's
                             tolerance transformation, the meaning rtol had for radau5/radau
                             before 36e05d1, so that a build from before it and one after take
                             the same steps (compare the two steps columns).
    --only PROBLEM[:METHOD]  run only the cases of that problem (and method); repeatable.
"""
import argparse
import json
import statistics
import subprocess
import sys

CASES = [
    ("pendulum", "radau5", ["--rtol", "1e-7", "--atol", "1e-7"]),
    ("andrews", "radau5", ["--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"]),
    ("transistor", "radau5", ["--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"]),
    ("akzo", "radau5", ["--rtol", "1e-7", "--atol", "1e-7"]),
    ("vanderpol", "radau5", ["--rtol", "1e-7", "--atol", "1e-7"]),
    # the car-axis-type case: a planar vehicle multibody system in index-3 form (n = 20), built
    # into both the old and new builds (the IVP Test Set's CARAXIS is not built in)
    ("truck-index3", "radau5", ["--rtol", "1e-7", "--atol", "1e-7"]),
    ("transistor", "bdf", ["--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"]),
    ("akzo", "bdf", ["--rtol", "1e-7", "--atol", "1e-7"]),
    ("vanderpol", "bdf", ["--rtol", "1e-7", "--atol", "1e-7"]),
    ("pendulum-index2", "bdf", ["--rtol", "1e-7", "--atol", "1e-7"]),
]


def has_option(binary, method, option):
    out = subprocess.run([binary, "methods", method], capture_output=True, text=True)
    return any(line.split()[:1] == [option] for line in out.stdout.splitlines())


def method_extra(binary, method, transform):
    if transform and has_option(binary, method, "transform_tolerances"):
        return ["--option", "transform_tolerances=true"]
    return []


def solve(binary, problem, method, extra):
    out = subprocess.run([binary, "solve", problem, "--method", method, "--json"] + extra,
                         capture_output=True, text=True)
    if not out.stdout.strip():
        return None, None
    d = json.loads(out.stdout)
    return d["cpu_seconds"], d["stats"]["nsteps"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--transform-tolerances", action="store_true")
    ap.add_argument("--only", action="append", default=[], metavar="PROBLEM[:METHOD]",
                    help="run only these cases (repeatable)")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.only or any(
        o.split(":")[0] == c[0] and (":" not in o or o.split(":")[1] == c[1]) for o in a.only)]
    print("interleaved CPU time per solve (median of %d, JSON cpu_seconds)" % a.rounds)
    print("rerun: /usr/bin/python3 bench/compare_builds.py %s %s --rounds %d%s%s" %
          (a.old, a.new, a.rounds, " --transform-tolerances" if a.transform_tolerances else "",
           "".join(" --only " + o for o in a.only)))
    print("%-16s %-7s %7s %7s %10s %10s %7s" %
          ("problem", "method", "steps", "steps", "old ms", "new ms", "new/old"))
    for problem, method, extra in cases:
        old_t, new_t = [], []
        old_steps = new_steps = None
        old_extra = extra + method_extra(a.old, method, a.transform_tolerances)
        new_extra = extra + method_extra(a.new, method, a.transform_tolerances)
        for _ in range(a.rounds):
            t, old_steps = solve(a.old, problem, method, old_extra)
            if t is not None:
                old_t.append(t)
            t, new_steps = solve(a.new, problem, method, new_extra)
            if t is not None:
                new_t.append(t)
        if not old_t or not new_t:
            print("%-16s %-7s  (not solvable by both builds)" % (problem, method))
            continue
        mo, mn = statistics.median(old_t), statistics.median(new_t)
        print("%-16s %-7s %7s %7s %10.3f %10.3f %7.3f" %
              (problem, method, old_steps, new_steps, 1e3 * mo, 1e3 * mn, mn / mo))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
