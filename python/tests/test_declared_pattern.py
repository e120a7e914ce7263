"""jac_sparsity of solve_dae is the structure of dF/dy + c dF/dy': a pattern of dF/dy alone
lost the dF/dy' entries (the BDF failed at t = 0 without a word about the pattern); it is now
refused, naming the entries."""

import numpy as np
import pytest
import scipy.sparse as sp

import daekit

N = 30


def chain(t, y, yp):
    r = yp.copy()
    r[:-1] += 0.5 * yp[1:]
    r[0] += y[0]
    r[1:] -= y[:-1]
    return r


def test_pattern_without_dF_dyp_entries_is_refused():
    pattern = sp.diags([np.ones(N), np.ones(N - 1)], [0, -1]).tocsc()
    with pytest.raises(ValueError, match=r"dF/dy'\(0, 1\)"):
        daekit.solve_dae(chain, (0, 1), np.ones(N), np.zeros(N), jac_sparsity=pattern)
    complete = sp.diags([np.ones(N), np.ones(N - 1), np.ones(N - 1)], [0, -1, 1]).tocsc()
    res = daekit.solve_dae(chain, (0, 1), np.ones(N), None, jac_sparsity=complete)
    assert res.success, res.message
