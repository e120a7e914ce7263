"""Every built-in problem solved from Python gives the C++ solve's y(t_end) (the daekit
command's JSON, full precision), and the registry is reachable by name."""

import json
import subprocess

import numpy as np
import pytest

import daekit

NAMES = daekit.problems()


def test_problems_and_methods_by_name(cli):
    out = subprocess.run([cli, "list"], capture_output=True, text=True, check=True).stdout
    listed = [line.split()[0] for line in out.splitlines()[1:] if line.strip()]
    assert NAMES == listed
    assert daekit.methods()[:3] == ["radau5", "bdf", "projected-rk"]
    info = daekit.method_info("radau5")
    assert info["capabilities"]["max_index"] == 3 and info["capabilities"]["projection"]
    with pytest.raises(ValueError, match="valid methods"):
        daekit.method_info("euler")
    with pytest.raises(ValueError, match="unknown problem 'nosuch'"):
        daekit.problem("nosuch")


@pytest.mark.parametrize("name", NAMES)
def test_builtin_matches_cpp(name, cli):
    proc = subprocess.run([cli, "solve", name, "--json"], capture_output=True, text=True)
    cpp = json.loads(proc.stdout)
    res = daekit.solve_problem(name)
    # both defaults are method "auto": the same method, chosen by the same rule
    assert res.method == cpp["method"] and res.method_choice == cpp["method_choice"]
    assert cpp["method_requested"] == "auto"
    assert res.daekit_status == cpp["status"]
    assert res.result.t == cpp["t"]
    y_py, y_cpp = res.result.y, np.array(cpp["y"], dtype=float)
    # the same arithmetic in the same library: equal to round-off (in fact bit for bit)
    np.testing.assert_allclose(y_py, y_cpp, rtol=1e-14, atol=0)
    for key, value in cpp["stats"].items():
        assert res.stats[key] == value, key
    if cpp["scd"] is not None:
        assert res.scd == pytest.approx(cpp["scd"], rel=1e-12)
        assert res.component_digits == pytest.approx(cpp["component_digits"], rel=1e-12)
    else:
        assert res.component_digits is None and cpp["component_digits"] is None


def test_builtin_attributes():
    p = daekit.problem("andrews")
    assert p.n == 27 and p.t_span == (0.0, 0.03) and p.parameter_names == ["torque"]
    assert p.p.tolist() == [0.033] and p.is_mechanical
    assert p.reference["y"].shape == (27,) and p.index[:7] == [1] * 7
    r = daekit.problem("robertson-dae")
    assert r.mass.shape == (3, 3) and r.mass[2, 2] == 0.0
    # with other parameters a mechanical problem gets consistent initial values
    q = p.with_parameters([0.04])
    assert q.p.tolist() == [0.04]
    assert np.array_equal(q.y0[:14], p.y0[:14]) and not np.allclose(q.y0[14:], p.y0[14:])
    res = q.solve()
    assert res.success, res.message
    with pytest.raises(ValueError, match="1 parameter"):
        p.with_parameters([1.0, 2.0])


def test_stiff_problems_and_explicit_methods():
    # the sweep's "not applicable: explicit method on a stiff problem" (issue 9)
    assert daekit.problem("vanderpol").stiff and daekit.problem("transistor").stiff
    assert not daekit.problem("akzo").stiff
    assert daekit.method_info("erk")["capabilities"]["explicit_method"]
    assert not daekit.method_info("radau5")["capabilities"]["explicit_method"]


def test_builtin_report_has_scd():
    res = daekit.solve_problem("vanderpol")
    text = res.report()
    assert "scd" in text and "status" in text
    assert res.scd > 4
