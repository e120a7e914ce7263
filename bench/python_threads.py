"""solve_many on threads: 1000 solves of Andrews' squeezer with different drive torques on 1 and
on 2 threads (the GIL is released inside the solver). Runs the two alternately, `--repeats`
times each, and reports the best times, their ratio and the load average before and after
(on a shared machine the ratio is only meaningful when the load is low: < 0.5 on 2 cores).
Exit status 1 if the best ratio is below --require (default 1.8).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_threads.py [--repeats 5]
"""

import argparse
import os
import time

import numpy as np

import daekit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--require", type=float, default=1.8)
    a = ap.parse_args()
    torques = np.linspace(0.02, 0.05, a.runs).reshape(-1, 1)
    load0 = os.getloadavg()
    best = {1: np.inf, 2: np.inf}
    results = {}
    for _ in range(a.repeats):
        for threads in (1, 2):
            t0 = time.perf_counter()
            ens = daekit.solve_many("andrews", torques, threads=threads)
            best[threads] = min(best[threads], time.perf_counter() - t0)
            results[threads] = ens
    load1 = os.getloadavg()
    same = np.array_equal(results[1].y, results[2].y) and results[1].success.all()
    ratio = best[1] / best[2]
    print("date %s, %d CPUs, load average before %.2f %.2f %.2f, after %.2f %.2f %.2f"
          % (time.strftime("%Y-%m-%d %H:%M"), os.cpu_count(), *load0, *load1))
    print("%d Andrews solves (torque %.3f..%.3f): 1 thread %.3f s, 2 threads %.3f s (best of %d)"
          % (a.runs, torques[0, 0], torques[-1, 0], best[1], best[2], a.repeats))
    print("speed-up 2 threads / 1 thread: %.2fx; identical results: %s" % (ratio, same))
    return 0 if same and ratio >= a.require else 1


if __name__ == "__main__":
    raise SystemExit(main())
