"""Method options (issue 24) from the command line and from Python.

The registry is walked option by option: every option of every registered method
(``daekit.method_info()``), set to a valid value other than its default with ``daekit solve
--option NAME=VALUE`` and with a keyword argument of ``solve_ivp``, reaches the method (the
values it reports: ``--json``'s ``method_options``, the result's ``method_options``); values of
the wrong type or out of range are refused naming the option.  Nothing here lists the options:
an option added to a method's description is tested by the same walk.  Then the orders the
options select: SPARK's stages (paper 002, order 2s - 2), beta-multistep's family and steps
(paper 003), dirk and erk tableaus by name (the order ``daekit tableau`` gives)."""

import inspect
import json
import math
import re
import subprocess

import numpy as np
import pytest

import daekit

# small problems, the first a method accepts is used (as the conformance suite does)
_PROBLEMS = ("pendulum-index1", "pendulum-index2", "el-manufactured")
_SPAN = 0.05  # a short solve: the options are reported at setup


def _infos():
    return daekit.method_info()


def _fixed(info):
    """Constant steps for a method without an error estimate."""
    return {} if info["capabilities"]["error_estimate"] else dict(fixed_step=True,
                                                                  first_step=0.01)


def _python_solve(info, problem, **options):
    bp = daekit.problem(problem)
    kw = dict(bp.recommended_options(), **_fixed(info))
    kw.update(options)
    return daekit.solve_ivp(bp.problem, (bp.t0, bp.t0 + _SPAN), bp.y0, method=info["name"],
                            **kw)


_PROBLEM_OF = {}


def _problem_for(info):
    name = info["name"]
    if name not in _PROBLEM_OF:
        for problem in _PROBLEMS:
            try:
                _python_solve(info, problem)
            except ValueError:
                continue
            _PROBLEM_OF[name] = problem
            break
        else:
            pytest.fail("method %s accepts none of %s" % (name, _PROBLEMS))
    return _PROBLEM_OF[name]


def _text(value):
    """An option value as the command line takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _in_range(o, x):
    above = x > o["min"] if o["min_open"] else x >= o["min"]
    below = x < o["max"] if o["max_open"] else x <= o["max"]
    return above and below


def _candidates(o):
    """Values of the option's type other than its default, in its range (the method decides
    which combinations with its other defaults are valid)."""
    kind, default = o["type"], o["default"]
    if kind == "bool":
        return [not default]
    if kind in ("choice", "tableau"):
        return [c for c in o["choices"] if c != default]
    if kind == "int":
        if o["choices"]:
            return [int(c) for c in o["choices"] if int(c) != default]
        return [v for v in (default + 1, default - 1, default + 2) if _in_range(o, v)]
    base = default if isinstance(default, float) else 0.0
    return [v for v in (1.5 * base, 0.5 * base, base + 0.05, base - 0.05, -0.3)
            if _in_range(o, v) and v != default]


def _options():
    """(method info, option) for every option of every registered method."""
    return [(info, o) for info in _infos() for o in daekit.method_info(info["name"])["options"]]


def _option_id(pair):
    return "%s-%s" % (pair[0]["name"], pair[1]["name"])


def _run_cli(cli, info, problem, options):
    bp = daekit.problem(problem)
    cmd = [cli, "solve", problem, "--method", info["name"], "--t-end", repr(bp.t0 + _SPAN),
           "--json"]
    if not info["capabilities"]["error_estimate"]:
        cmd += ["--fixed-step", "--h0", "0.01"]
    for k, v in options:
        cmd += ["--option", "%s=%s" % (k, _text(v))]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_every_method_has_options_and_the_walk_covers_them():
    pairs = _options()
    assert len(pairs) >= 50
    for info in _infos():
        assert daekit.method_info(info["name"])["options"], info["name"]


@pytest.mark.parametrize("pair", _options(), ids=_option_id)
def test_every_option_reaches_the_method_from_python_and_the_command_line(pair, cli):
    info, o = pair
    name, method = o["name"], info["name"]
    problem = _problem_for(info)
    defaults = {x["name"]: x["default"] for x in daekit.method_info(method)["options"]}
    # the first candidate the method takes (a refusal names the option)
    value, res = None, None
    for v in _candidates(o):
        try:
            res = _python_solve(info, problem, **{name: v})
        except ValueError as e:
            assert "'%s'" % name in str(e) or "%s=" % name in str(e), str(e)
            continue
        value = v
        break
    assert value is not None, "%s: no valid value for %s among %s" % (method, name,
                                                                      _candidates(o))
    # Python: the value the method object reports, the others at their defaults
    assert res.method_options == dict(defaults, **{name: value})
    assert type(res.method_options[name]) is type(value)
    # the command line: the same value as text, reported in --json
    proc = _run_cli(cli, info, problem, [(name, value)])
    assert proc.returncode in (0, 1), proc.stderr
    reported = json.loads(proc.stdout)["method_options"]
    assert reported == dict(defaults, **{name: value}), proc.stdout


def _wrong_type(o):
    return {"bool": "yes", "int": 2.5, "double": "fast", "choice": 7, "tableau": 7}[o["type"]]


def _out_of_range(o):
    """A value of the right type that the description refuses, or None."""
    kind = o["type"]
    if kind in ("choice", "tableau"):
        return "no-such-value"
    if kind == "int":
        if o["choices"]:
            return max(int(c) for c in o["choices"]) + 1
        if math.isfinite(o["max"]):
            return int(o["max"]) + 1
        return int(o["min"]) - 1
    if kind == "double":
        if math.isfinite(o["min"]):
            return o["min"] - 1.0
        if math.isfinite(o["max"]):
            return o["max"] + 1.0
        return math.inf
    return None


@pytest.mark.parametrize("pair", _options(), ids=_option_id)
def test_bad_values_are_refused_naming_the_option(pair, cli):
    info, o = pair
    name, method = o["name"], info["name"]
    problem = _problem_for(info)
    with pytest.raises(TypeError, match="option '%s' of method '%s' must be" % (name, method)):
        _python_solve(info, problem, **{name: _wrong_type(o)})
    bad = _out_of_range(o)
    if bad is not None:
        with pytest.raises(ValueError, match="method '%s', option '%s'" % (method, name)):
            _python_solve(info, problem, **{name: bad})
    for text in (["x!"] if bad is None else ["x!", _text(bad)]):
        proc = _run_cli(cli, info, problem, [(name, text)])
        assert proc.returncode == 2, proc.stdout
        assert "method '%s', option '%s'" % (method, name) in proc.stderr, proc.stderr
        if o["type"] not in ("tableau",):
            assert o["range"] in proc.stderr, proc.stderr


def test_unknown_options_are_refused_by_name(cli):
    bp = daekit.problem("pendulum-index2")
    with pytest.raises(TypeError, match=r"unknown option 'stagez' \(options of method 'spark': "
                                        r"stages, mass_form_part"):
        daekit.solve_ivp(bp.problem, (0, 0.1), bp.y0, method="spark", stagez=4)
    # an option of another method: which one it belongs to
    with pytest.raises(TypeError, match=r"unknown option 'stages' \('stages' is an option of "
                                        r"method spark\) \(options of method 'radau5'"):
        daekit.solve_ivp(bp.problem, (0, 0.1), bp.y0, method="radau5", stages=4)
    with pytest.raises(ValueError, match="tableau is for methods .*dirk.*not 'radau5'"):
        daekit.solve_ivp(bp.problem, (0, 0.1), bp.y0, method="radau5", tableau="gauss-2")
    proc = subprocess.run([cli, "solve", "pendulum-index2", "--method", "spark", "--option",
                           "stagez=4"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "method 'spark', option 'stagez': no such option; its options: stages" in proc.stderr
    proc = subprocess.run([cli, "solve", "pendulum-index2", "--method", "spark", "--option",
                           "stages=4", "--option", "stages=3"], capture_output=True, text=True)
    assert proc.returncode == 2 and "option 'stages': given twice" in proc.stderr
    proc = subprocess.run([cli, "solve", "pendulum-index2", "--option", "stages"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "--option needs NAME=VALUE" in proc.stderr


def test_sweep_takes_the_method_options(cli):
    proc = subprocess.run([cli, "sweep", "andrews", "--values", "0.03", "--method", "radau5",
                           "--option", "transform_tolerances=false"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["method_options"]["transform_tolerances"] is False
    proc = subprocess.run([cli, "sweep", "andrews", "--values", "0.03", "--method", "radau5",
                           "--option", "transform_tolerances=maybe"], capture_output=True,
                          text=True)
    assert proc.returncode == 2
    assert "method 'radau5', option 'transform_tolerances': 'maybe' is not a boolean" \
        in proc.stderr


def test_every_front_end_takes_the_same_options(cli):
    """The integrator, solve_dae, solve_many and the Integrator take the method options too;
    their names clash with no other argument."""
    reserved = set(inspect.signature(daekit.solve_ivp).parameters) | \
        set(inspect.signature(daekit.Integrator.__init__).parameters) | \
        set(inspect.signature(daekit.solve_dae).parameters) | \
        set(daekit._ivp._PASSTHROUGH) | set(daekit._ivp._SCIPY_OPTIONS)
    reserved -= {"options", "tableau"}  # tableau= is the methods' option of that name
    for info, o in _options():
        assert o["name"] not in reserved, (info["name"], o["name"])
    bp = daekit.problem("pendulum-index2")
    it = daekit.Integrator(bp.problem, (0, 0.1), bp.y0, method="spark", stages=2,
                           rtol=1e-6, atol=1e-6)
    while not it.finished:
        it.step()
    assert it.result().method_options["stages"] == 2
    runs = daekit.solve_many("pendulum-ssf", [[1.0, 1.0, 9.81], [1.0, 1.1, 9.81]],
                             t_span=(0, 0.1), method="erk", tableau="bs3",
                             max_newton_iterations=5, threads=2)
    assert [r["method_options"] for r in runs] == [dict(tableau="bs3",
                                                        max_newton_iterations=5)] * 2
    def decay(t, y, yp):
        return yp + y
    orders = []
    res = daekit.solve_dae(decay, (0, 1), [1.0], [-1.0], method="bdf", max_order=2,
                           rtol=1e-8, atol=1e-10, trace=lambda row: orders.append(row["order"]))
    assert res.success and res.method_options["max_order"] == 2
    assert abs(res.y[0, -1] - math.exp(-1)) < 1e-6
    assert max(orders) == 2  # (the default run reaches order 5 here)
    assert daekit.solve_dae(decay, (0, 1), [1.0], [-1.0], rtol=1e-8, atol=1e-10,
                            fixed_order=3).result.order == 3
    with pytest.raises(TypeError, match="option 'max_order' of method 'bdf' must be an integer"):
        daekit.solve_dae(decay, (0, 1), [1.0], [-1.0], max_order="2")
    # the radau5 option a warning asks for is accepted (it was refused as unknown)
    r = daekit.solve_problem("pendulum", transform_tolerances=False)
    assert r.method_options["transform_tolerances"] is False


def test_help_and_methods_come_from_the_registry(cli):
    """`daekit --help` says what each method handles (the BDF: index 2, not 1), and `daekit
    methods NAME` lists every option with its type, default and valid values."""
    text = " ".join(subprocess.run([cli, "--help"], capture_output=True, text=True)
                    .stdout.split())
    for info in _infos():
        # "NAME (...)" with one level of inner parentheses: "bdf (also F(t, y, y') = 0, ...)"
        said = re.search(r"\b%s \(((?:[^()]|\([^()]*\))*)\)" % re.escape(info["name"]), text)
        assert said, info["name"]
        assert "index <= %d" % info["capabilities"]["max_index"] in said.group(1), said.group(0)
    for info in _infos():
        proc = subprocess.run([cli, "methods", info["name"]], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        for o in daekit.method_info(info["name"])["options"]:
            line = next(x for x in lines if x.split()[:1] == [o["name"]])
            _, kind, default = line.split()[:3]
            assert kind == o["type"], line
            if isinstance(o["default"], float):
                assert float(default) == o["default"], line
            else:
                assert default == _text(o["default"]), line
            assert o["range"] in " ".join(proc.stdout.split()), o["range"]
    proc = subprocess.run([cli, "methods", "nosuch"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown method 'nosuch'; valid methods" in proc.stderr


# --- the orders the options select ------------------------------------------------------------

def _order(y):
    """The order from step halving: log2 of the ratio of successive differences of the end
    values y[0], y[1], y[2] at h, h/2, h/4 (Richardson, no reference needed)."""
    d1 = np.max(np.abs(y[0] - y[1]))
    d2 = np.max(np.abs(y[1] - y[2]))
    return math.log2(d1 / d2)


def _cli_end_values(cli, problem, method, t_end, hs, args):
    ys = []
    for h in hs:
        cmd = [cli, "solve", problem, "--method", method, "--fixed-step", "--h0", repr(h),
               "--t-end", repr(t_end), "--json"] + args
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        ys.append(np.array(json.loads(proc.stdout)["y"]))
    return ys


def _python_end_values(problem, method, t_end, hs, options):
    bp = daekit.problem(problem)
    ys = []
    for h in hs:
        r = daekit.solve_ivp(bp.problem, (bp.t0, t_end), bp.y0, method=method, fixed_step=True,
                             first_step=h, **options)
        assert r.success, r.message
        ys.append(r.y[:, -1])
    return ys


def _differential(problem):
    """The components with index tag 1 (the order statements are about them)."""
    index = np.asarray(daekit.problem(problem).index)
    return np.flatnonzero(index <= 1) if index.size else slice(None)


def _both_orders(cli, problem, method, t_end, hs, options):
    keep = _differential(problem)
    args = []
    for k, v in options.items():
        args += ["--option", "%s=%s" % (k, _text(v))]
    tight = ["--rtol", "1e-13", "--atol", "1e-13"]
    from_cli = _order([y[keep] for y in _cli_end_values(cli, problem, method, t_end, hs,
                                                        args + tight)])
    from_python = _order([y[keep] for y in _python_end_values(
        problem, method, t_end, hs, dict(options, rtol=1e-13, atol=1e-13))])
    return from_cli, from_python


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_spark_stages_give_order_2s_minus_2(cli, stages):
    """Paper 002, Corollary 4.6 (Fig. 5.1): order 2s - 2 in y, on pendulum-index2 (the
    command of the issue: daekit solve pendulum-index2 --method spark --option stages=4)."""
    hs = {2: (0.02, 0.01, 0.005), 3: (0.04, 0.02, 0.01), 4: (0.1, 0.05, 0.025)}[stages]
    p_cli, p_py = _both_orders(cli, "pendulum-index2", "spark", 1.0, hs,
                               dict(stages=stages, newton_tolerance=1e-3,
                                    max_newton_iterations=40))
    print("spark s = %d: order %.2f (command line), %.2f (Python); 2s - 2 = %d"
          % (stages, p_cli, p_py, 2 * stages - 2))
    assert abs(p_cli - (2 * stages - 2)) < 0.35
    assert abs(p_py - (2 * stages - 2)) < 0.35


@pytest.mark.parametrize("family,steps,order", [("dcbdf", 2, 3), ("dcbdf", 3, 4),
                                                ("adams-moulton", 2, 3), ("adams-moulton", 3, 4),
                                                ("bdf", 2, 2), ("bdf", 3, 3)])
def test_beta_multistep_family_and_steps_give_their_order(cli, family, steps, order):
    """Paper 003, Theorem 2.1: beta-blocked DCBDFk and AMk order k + 1 in x, BDFk order k,
    on the manufactured Euler-Lagrange problem."""
    hs = (0.01, 0.005, 0.0025)  # in the asymptotic range (beta-DCBDF3 at h = 0.04: 2.6)
    p_cli, p_py = _both_orders(cli, "el-manufactured", "beta-multistep", 1.0, hs,
                               dict(family=family, steps=steps))
    print("beta-multistep %s%d: order %.2f (command line), %.2f (Python); expected %d"
          % (family, steps, p_cli, p_py, order))
    assert abs(p_cli - order) < 0.35
    assert abs(p_py - order) < 0.35


def test_beta_multistep_blocker_order_blocks_am4(cli):
    """Paper 003, Remark 2.2 and Section 2: AM4 cannot be blocked with c nabla^4, but with a
    blocker of order q = 3 (option blocker_order) it converges with order q + 1 = 4 in x, from
    the command line and from Python alike; without it the options are refused."""
    hs = (0.025, 0.0125, 0.00625)  # at t = 2 (at t = 1 the x error changes sign near h = 0.01)
    p_cli, p_py = _both_orders(cli, "el-manufactured", "beta-multistep", 2.0, hs,
                               dict(family="adams-moulton", steps=4, blocker_order=3))
    print("beta-multistep AM4, blocker_order 3: order %.2f (command line), %.2f (Python)"
          % (p_cli, p_py))
    assert abs(p_cli - 4) < 0.35
    assert abs(p_py - 4) < 0.35
    refused = subprocess.run([cli, "solve", "el-manufactured", "--method", "beta-multistep",
                              "--option", "family=adams-moulton", "--option", "steps=4"],
                             capture_output=True, text=True)
    assert refused.returncode != 0
    assert "blocker_order" in refused.stderr


def _tableau_order(cli, name):
    rows = subprocess.run([cli, "tableau"], capture_output=True, text=True).stdout.splitlines()
    return next(int(r.split()[2]) for r in rows if r.split()[:1] == [name])


@pytest.mark.parametrize("method,tableau", [("dirk", "sdirk4-hw16"), ("dirk", "alexander2"),
                                            ("dirk", "kvaerno3"), ("erk", "rk4"),
                                            ("erk", "bs3"), ("erk", "explicit-euler")])
def test_dirk_and_erk_tableaus_by_name_give_their_order(cli, method, tableau):
    """The order `daekit tableau` states, at constant steps on the pendulum's state-space
    form (an ODE, smooth)."""
    order = _tableau_order(cli, tableau)
    hs = (0.04, 0.02, 0.01) if order >= 3 else (0.01, 0.005, 0.0025)
    p_cli, p_py = _both_orders(cli, "pendulum-ssf", method, 1.0, hs, dict(tableau=tableau))
    print("%s tableau %s: order %.2f (command line), %.2f (Python); the tableau's %d"
          % (method, tableau, p_cli, p_py, order))
    assert abs(p_cli - order) < 0.35
    assert abs(p_py - order) < 0.35


# --- scipy's LSODA names: min_step, lband/uband ----------------------------------------------

def test_min_step_ends_the_solve_naming_it():
    rob = daekit.problem("robertson")
    r = rob.solve("radau5", min_step=1e-3, first_step=None)
    assert r.daekit_status == "step_size_too_small" and not r.success
    assert "below hmin (min_step) = 0.001" in r.message
    # a smallest step the solve can keep: steps (but the last) are at least min_step
    r = rob.solve("radau5", min_step=1e-5, first_step=None)
    assert r.success, r.message
    assert np.all(np.diff(r.t)[:-1] >= 1e-5)
    with pytest.raises(ValueError, match="h0 = 1e-06 is below hmin = 1e-05"):
        rob.solve("radau5", min_step=1e-5)  # the problem's recommended first step is smaller
    with pytest.raises(TypeError, match="min_step must be a real number"):
        rob.solve("radau5", min_step="small")


_N = 40


def _heat(t, y):
    d = -2.0 * y
    d[1:] += y[:-1]
    d[:-1] += y[1:]
    return 50.0 * d


def _heat_packed(t, y):
    """scipy's LSODA packed format, jac_packed[uband + i - j, j] = jac[i, j]."""
    P = np.zeros((3, _N))
    P[0, 1:] = 50.0   # the upper diagonal (i = j - 1)
    P[1, :] = -100.0
    P[2, :-1] = 50.0  # the lower diagonal (i = j + 1)
    return P


def test_lband_uband_are_a_banded_jacobian():
    y0 = np.sin(np.linspace(0.0, 3.0, _N))
    # (detect_sparsity=False: the dense path to compare with; n = 40 would get its band
    # detected, tests/test_sparsity_detection.py)
    full = daekit.solve_ivp(_heat, (0, 1), y0, rtol=1e-8, atol=1e-10, detect_sparsity=False)
    banded = daekit.solve_ivp(_heat, (0, 1), y0, rtol=1e-8, atol=1e-10, lband=1, uband=1)
    packed = daekit.solve_ivp(_heat, (0, 1), y0, rtol=1e-8, atol=1e-10, lband=1, uband=1,
                              jac=_heat_packed)
    assert full.linear_solver == "dense LU" and full.result.jacobian_colours == _N
    assert banded.linear_solver == "banded LU" and banded.result.jacobian_colours == 3
    assert packed.linear_solver == "banded LU" and packed.result.jacobian_colours == 0
    assert np.max(np.abs(banded.y[:, -1] - full.y[:, -1])) < 1e-9
    assert np.max(np.abs(packed.y[:, -1] - full.y[:, -1])) < 1e-9
    # a constant packed array, and one bandwidth alone (the other 0, as scipy)
    const = daekit.solve_ivp(_heat, (0, 1), y0, rtol=1e-8, atol=1e-10, lband=1, uband=1,
                             jac=_heat_packed(0, y0))
    assert np.max(np.abs(const.y[:, -1] - full.y[:, -1])) < 1e-9
    lower = daekit.solve_ivp(lambda t, y: -y + np.concatenate(([0.0], y[:-1])), (0, 1),
                             np.ones(5), lband=1)
    assert lower.success and lower.result.jacobian_colours == 2
    # the Integrator and solve_many take them too
    it = daekit.Integrator(_heat, (0, 0.1), y0, lband=1, uband=1, jac=_heat_packed)
    it.solve_until(0.1)
    assert it.result().linear_solver == "banded LU"
    # refused
    bad = daekit.solve_ivp(_heat, (0, 1), y0, lband=1, uband=1, jac=lambda t, y: np.eye(_N))
    assert bad.daekit_status == "callback_error"
    assert "packed banded Jacobian of shape (lband + uband + 1, n) = (3, 40)" in bad.message
    with pytest.raises(ValueError, match="lband/uband or jac_sparsity, not both"):
        daekit.solve_ivp(_heat, (0, 1), y0, lband=1, jac_sparsity=daekit.banded(1, 1))
    with pytest.raises(ValueError, match="lband must be >= 0"):
        daekit.solve_ivp(_heat, (0, 1), y0, lband=-1)
    with pytest.raises(TypeError, match="uband must be an integer"):
        daekit.solve_ivp(_heat, (0, 1), y0, uband=1.5)
    with pytest.raises(TypeError, match="lband is for solve_ivp"):
        daekit.solve_dae(lambda t, y, yp: yp + y, (0, 1), [1.0], [-1.0], lband=0)
    rob = daekit.problem("robertson")
    with pytest.raises(TypeError, match="lband cannot be given with a problem object"):
        daekit.solve_ivp(rob.problem, rob.t_span, rob.y0, lband=1)



def _robertson_ode(t, y):
    return np.array([-0.04 * y[0] + 1e4 * y[1] * y[2],
                     0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
                     3e7 * y[1] ** 2])


def _hires(t, y):  # the IVP Test Set's HIRES (n = 8)
    return np.array([
        -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007,
        1.71 * y[0] - 8.75 * y[1],
        -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4],
        8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3],
        -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6],
        -280.0 * y[5] * y[7] + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6],
        280.0 * y[5] * y[7] - 1.81 * y[6],
        -280.0 * y[5] * y[7] + 1.81 * y[6]])


@pytest.mark.parametrize("method", ["radau5", "radau"])
def test_a_costly_python_difference_jacobian_is_kept_longer(method):
    # a plain Python f without jac in more column groups than radau5's 3 stages: its Jacobian
    # costs more Python calls than a Newton iteration, so radau5 keeps it while
    # Newton contracts below 0.1 (RADAU5's advice for costly Jacobians), which the result
    # reports; fewer Jacobians and evaluations of f in all, the same answer to the tolerance;
    # the user's value wins; with jac, or with 3 unknowns, the method's default; the
    # variable-order radau (whose order selection reads the contraction rate) keeps its default
    default = {o["name"]: o["default"]
               for o in daekit.method_info(method)["options"]}["jacobian_reuse_theta"]
    y0 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057]
    kw = dict(t_span=(0.0, 321.8122), y0=y0, method=method, rtol=1e-4, atol=1e-8)
    res = daekit.solve_ivp(_hires, **kw)
    assert res.success
    if method == "radau":
        assert res.method_options["jacobian_reuse_theta"] == default
        return
    assert res.method_options["jacobian_reuse_theta"] == 0.1
    strict = daekit.solve_ivp(_hires, jacobian_reuse_theta=default, **kw)
    assert strict.method_options["jacobian_reuse_theta"] == default
    assert res.njev < strict.njev and res.nfev < strict.nfev
    assert np.allclose(res.y[:, -1], strict.y[:, -1], rtol=1e-3, atol=1e-7)
    with_jac = daekit.solve_ivp(_hires, jac=lambda t, y: np.eye(8), **dict(kw, t_span=(0, 1)))
    assert with_jac.method_options["jacobian_reuse_theta"] == default
    three = daekit.solve_ivp(_robertson_ode, (0.0, 1.0), [1.0, 0.0, 0.0], method=method)
    assert three.method_options["jacobian_reuse_theta"] == default
