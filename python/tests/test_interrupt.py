"""Ctrl-C stops solves whose callbacks never return to the interpreter (compiled callbacks from
a shared library) and ensembles on worker threads: SIGINT ends them with KeyboardInterrupt
carrying the partial result.

Each case runs in a subprocess solving Van der Pol (eps = 1e-3, rtol = 1e-10) over
t in (0, 1e9): about 10^8 relaxation periods, which would take days uninterrupted.  The
subprocess gets SIGINT about half a second into the solve and must have exited well within the
timeout (a functional bound, not a timing measurement)."""

import signal
import subprocess
import sys
import time

import pytest

SCRIPT = r"""
import sys
import numpy as np
import daekit

lib, mode = sys.argv[1], sys.argv[2]
f = daekit.from_library(lib, "vdp_rhs")
jac = daekit.from_library(lib, "vdp_jac")
kw = dict(rtol=1e-10, atol=1e-10, max_steps=10**12, store_steps=False)
try:
    if mode == "solve_ivp":
        print("solving", flush=True)
        daekit.solve_ivp(f, (0, 1e9), [2.0, 0.0], jac=jac, p=[1e-3], **kw)
    elif mode == "integrator":
        it = daekit.Integrator(f, (0, 1e9), [2.0, 0.0], jac=jac, p=[1e-3], **kw)
        print("solving", flush=True)
        try:
            it.solve_until(1e9)
        except KeyboardInterrupt:
            r = it.result()
            print("partial", r.daekit_status, r.result.t > 0, flush=True)
            raise
    else:
        # 4 runs from the equilibrium y = 0 finish at once; 4 from (2, 0) run for days
        y0 = [[0.0, 0.0]] * 4 + [[2.0, 0.0]] * 4
        print("solving", flush=True)
        daekit.solve_many(f, [[1e-3]] * 8, t_span=(0, 1e9), y0=y0, jac=jac, threads=2, **kw)
except KeyboardInterrupt as e:
    if mode == "solve_ivp":
        r = e.result
        print("partial", r.daekit_status, r.result.t > 0, flush=True)
    elif mode == "solve_many":
        r = e.result
        print("partial", len(r), r.status, [run["run"] for run in r.runs], flush=True)
    print("KeyboardInterrupt", flush=True)
    sys.exit(0)
print("finished", flush=True)
sys.exit(3)
"""


@pytest.mark.parametrize("mode", ["solve_ivp", "integrator", "solve_many"])
def test_sigint_stops_a_compiled_solve(mode, models_library, child_env, tmp_path):
    script = tmp_path / "long_solve.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), models_library, mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env)
    try:
        assert proc.stdout.readline().strip() == "solving"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out + err
    assert "KeyboardInterrupt" in out, out + err
    if mode in ("solve_ivp", "integrator"):
        assert "partial interrupted True" in out, out
    else:
        # the runs that finished before Ctrl-C are kept; the others were stopped
        assert "partial 4 ['success', 'success', 'success', 'success'] [0, 1, 2, 3]" in out, out
