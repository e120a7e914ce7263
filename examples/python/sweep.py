"""An ensemble: Andrews' squeezer for 200 drive torques on 2 threads (the GIL released in the
solver), then the same runs on 1 thread: identical results.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sweep.py
"""
import time

import numpy as np

import daekit

torques = np.linspace(0.02, 0.05, 200).reshape(-1, 1)
t0 = time.perf_counter()
ens = daekit.solve_many("andrews", torques, threads=2)
t2 = time.perf_counter() - t0
t0 = time.perf_counter()
one = daekit.solve_many("andrews", torques, threads=1)
t1 = time.perf_counter() - t0
print("%d Andrews solves: %.2f s on 1 thread, %.2f s on 2 threads (x%.2f); all ok: %s"
      % (len(ens), t1, t2, t1 / t2, ens.success.all()))
print("beta(0.03) from %.3f (torque %.3f) to %.3f (torque %.3f)"
      % (ens.y[0, 0], torques[0, 0], ens.y[-1, 0], torques[-1, 0]))
assert np.array_equal(ens.y, one.y) and ens.success.all()
