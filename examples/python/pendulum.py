"""A MechanicalSystem (the pendulum) solved in its four formulations; the index-1 form drifts
off the constraint unless it is projected after every step. Writes pendulum.png.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/pendulum.py [OUTDIR]
"""
import os
import sys

import numpy as np

import daekit

sys_ = daekit.MechanicalSystem(
    nq=2, nlambda=1, mass=np.eye(2),
    force=lambda t, q, v: [0.0, -1.0],                    # gravity
    g=lambda t, q: [0.5 * (q[0] ** 2 + q[1] ** 2 - 1.0)],  # |q| = 1
    G=lambda t, q: [[q[0], q[1]]])
q0, v0 = [1.0, 0.0], [0.0, 0.0]
for form in daekit.FORMULATIONS:
    res = sys_.solve((0, 20), q0, v0, form=form, rtol=1e-6, atol=1e-6)
    print("%-7s %-8s steps %4d  drift |g| %.1e  |Gv| %.1e" % (
        form, res.daekit_status, res.stats["naccept"], res.max_residual["position"],
        res.max_residual["velocity"]))
res = sys_.solve((0, 20), q0, v0, form="index1", rtol=1e-6, atol=1e-6, projection="full")
print("index1 with projection: drift |g| %.1e (%d projections)"
      % (res.max_residual["position"], res.stats["nproject"]))
assert res.max_residual["position"] < 1e-10
outdir = sys.argv[1] if len(sys.argv) > 1 else "."
png = os.path.join(outdir, "pendulum.png")
res.plot(components=[0, 1], filename=png)
print("wrote", png)
