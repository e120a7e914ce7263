"""Fuzz and fault harness of the Python boundary (deterministic seeds, a few seconds).

Malformed arguments (wrong shapes and dtypes, complex, NaN/Inf, empty, huge values; sparse
matrices with indices out of range, bad index pointers or data of the wrong length, in COO,
CSR, CSC and BSR) and faulty callbacks (raising, returning None, complex values, wrong sizes,
malformed sparse matrices, resizing between calls) go through solve_ivp, solve_dae, Integrator
and solve_many.  The contract: a TypeError or ValueError before solving, or a result whose
failure says why (success False and a message) -- never a crash, and never success with a
wrong answer: the problem is linear, y' = A y, and every successful answer is compared with
expm(A t) y0.  Inputs that are valid in another form (lists, big-endian or strided arrays,
other sparse formats) must give the right answer."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse

import daekit

N = 3
A = np.array([[-1.0, 0.5, 0.0], [0.0, -2.0, 1.0], [0.2, 0.0, -0.5]])
Y0 = np.array([1.0, -0.5, 2.0])
T1 = 1.0
TOL = dict(rtol=1e-7, atol=1e-10)
EXACT = scipy.linalg.expm(A * T1) @ Y0


def f(t, y):
    return A @ y


def f_p(t, y, p):  # for solve_many: p scales nothing (p[0] = 1) but must arrive
    return p[0] * (A @ y)


# --- malformed values ---------------------------------------------------------------------------

def bad_vectors(rng, v):
    """Variants of a vector argument: (label, value, valid)."""
    n = v.size
    huge = v * 1e300
    nan = v.copy()
    nan[rng.integers(n)] = np.nan
    inf = v.copy()
    inf[rng.integers(n)] = -np.inf
    return [
        ("complex", v + 1j * rng.random(n), False),
        ("complex dtype, zero imaginary part", v.astype(complex), False),
        ("object", np.array(list(v[:-1]) + [None], dtype=object), False),
        ("strings", np.array([str(x) for x in v]), False),
        ("column", v.reshape(n, 1), False),
        ("row matrix", v.reshape(1, n), False),
        ("too long", np.append(v, 1.0), False),
        ("too short", v[:-1], False),
        ("empty", np.array([]), False),
        ("NaN", nan, False),
        ("Inf", inf, False),
        ("huge", huge, None),
        ("list", list(v), True),
        ("big-endian", v.astype(">f8"), True),
        ("strided", np.repeat(v, 2)[::2], True),
    ]


def mangled_sparse(rng, M):
    """Malformed scipy sparse versions of the matrix M (every format, every array)."""
    out = []
    for fmt in ("coo", "csr", "csc", "bsr"):
        for fault in ("index out of range", "negative index", "short data", "long data",
                      "indptr", "complex", "shape"):
            m = scipy.sparse.coo_matrix(M).asformat(fmt)
            if fmt == "bsr":
                m = scipy.sparse.bsr_matrix(M, blocksize=(1, 1))
            if fault == "shape":
                m = scipy.sparse.coo_matrix(np.eye(M.shape[0] + 1)).asformat(fmt)
            elif fault == "complex":
                m = m.astype(complex) * (1 + 1j)
            elif fault in ("short data", "long data"):
                d = m.data
                m.data = d[:-1].copy() if fault == "short data" else np.concatenate([d, d[:1]])
            elif fmt == "coo":
                if fault == "indptr":
                    m.row = m.row[:-1].copy()
                else:
                    col = m.col.copy()
                    col[rng.integers(col.size)] = 7 if fault == "index out of range" else -1
                    m.col = col
            else:
                if fault == "indptr":
                    p = m.indptr.copy()
                    p[1 + rng.integers(p.size - 2)] = p[-1] + 3
                    m.indptr = p
                else:
                    idx = m.indices.copy()
                    idx[rng.integers(idx.size)] = 9 if fault == "index out of range" else -2
                    m.indices = idx
            out.append(("%s %s" % (fmt, fault), m))
    return out


# --- faulty callbacks ---------------------------------------------------------------------------

class Faulty:
    """fun with a fault after `after` good calls; faults marked valid return the right values in
    another form."""

    FAULTS = {
        "raises": False, "None": False, "complex": False, "complex zero imaginary": False,
        "too long": False, "too short": False, "column": False, "strings": False,
        "dict": False, "NaN": False, "resizes": False, "recoverable forever": False,
        "list": True, "tuple": True, "big-endian": True, "strided": True,
    }

    def __init__(self, fault, after, rhs=f):
        self.fault, self.after, self.calls, self.rhs = fault, after, 0, rhs

    def __call__(self, t, y, *extra):
        self.calls += 1
        v = np.asarray(self.rhs(t, y, *extra), dtype=float)
        if self.calls <= self.after and self.fault != "resizes":
            return v
        k = self.fault
        if k == "raises":
            raise ValueError("a fault of the test")
        if k == "recoverable forever":
            raise daekit.RecoverableError("never evaluable")
        faulty = {
            "None": lambda: None, "complex": lambda: v + 1e-3j,
            "complex zero imaginary": lambda: v.astype(complex),
            "too long": lambda: np.append(v, 0.0), "too short": lambda: v[:-1],
            "column": lambda: v.reshape(-1, 1), "strings": lambda: v.astype(str),
            "dict": lambda: {"v": v}, "NaN": lambda: v * np.nan,
            "resizes": lambda: v if self.calls <= max(self.after, 1) else np.append(v, 1.0),
            "list": lambda: v.tolist(), "tuple": lambda: tuple(v.ravel()),
            "big-endian": lambda: v.astype(">f8"), "strided": lambda: np.repeat(v, 2)[::2],
        }
        return faulty[k]()


# --- the contract ---------------------------------------------------------------------------------

def outcomes(res):
    """(success, message, y at T1) of each run of a result."""
    if isinstance(res, daekit.EnsembleResult):
        return [(bool(s), m, y) for s, m, y in zip(res.success, res.message, res.y)]
    return [(res.success, res.message, res.result.y)]


def check(label, run, valid, scale=1.0):
    """valid True: must succeed with the right answer; False: refused or failed with a message;
    None: either, but a success must be right."""
    try:
        res = run()
    except (TypeError, ValueError) as e:
        assert valid is not True, "%s: a valid input was refused: %s" % (label, e)
        assert str(e), label
        return "refused"
    for success, message, y in outcomes(res):
        if success:
            assert valid is not False, "%s: success reported for a fault" % label
            np.testing.assert_allclose(y, scale * EXACT, rtol=1e-5, atol=1e-8 * scale,
                                       err_msg=label)
        else:
            assert valid is not True, "%s: valid input failed: %s" % (label, message)
            assert message, label
    return "solved"


def entry_points():
    """name -> run(fun, y0, **kw) for each entry point, on the problem y' = A y."""
    def ivp(fun, y0, **kw):
        return daekit.solve_ivp(fun, (0, T1), y0, **dict(TOL, **kw))

    def dae(fun, y0, **kw):
        kw.pop("mass", None)

        def F(t, y, yp):
            return yp - np.asarray(fun(t, y), dtype=float) if not isinstance(fun, Faulty) \
                else _residual(fun, t, y, yp)
        return daekit.solve_dae(F, (0, T1), y0, yp0=A @ Y0, **dict(TOL, **kw))

    def integrator(fun, y0, **kw):
        it = daekit.Integrator(fun, (0, T1), y0, **dict(TOL, **kw))
        it.solve_until(T1)
        return it.result()

    def many(fun, y0, **kw):
        fun_p = (lambda t, y, p: fun(t, y)) if fun is not f else f_p
        return daekit.solve_many(fun_p, [[1.0], [1.0]], t_span=(0, T1), y0=y0, threads=2,
                                 **dict(TOL, **kw))
    return dict(solve_ivp=ivp, solve_dae=dae, Integrator=integrator, solve_many=many)


def _residual(fun, t, y, yp):
    v = fun(t, y)
    try:
        return yp - v  # the fault passes through (None, dict, strings raise here: also faults)
    except TypeError:
        return v


ENTRY = entry_points()


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_malformed_initial_values(entry):
    rng = np.random.default_rng(1)
    run = ENTRY[entry]
    for label, v, valid in bad_vectors(rng, Y0):
        if entry == "solve_many" and label == "row matrix":
            valid = True  # one row of initial values for every run
        scale = 1e300 if label == "huge" else 1.0
        check("%s y0 %s" % (entry, label), lambda: run(f, v), valid, scale)


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_malformed_tolerances_and_output_times(entry):
    rng = np.random.default_rng(2)
    run = ENTRY[entry]
    atol = np.full(N, 1e-10)
    for label, v, valid in bad_vectors(rng, atol):
        if label == "huge":
            continue  # atol 1e290: "success" with any answer is what was asked
        check("%s atol %s" % (entry, label), lambda: run(f, Y0, atol=v), valid)
    t_eval = np.array([0.25, 0.5, T1])
    for label, v, valid in bad_vectors(rng, t_eval):
        if label in ("too short", "empty", "too long", "huge", "row matrix"):
            continue  # other output times, not malformed ones
        check("%s t_eval %s" % (entry, label), lambda: run(f, Y0, t_eval=v), valid)


@pytest.mark.parametrize("entry", ["solve_ivp", "Integrator", "solve_many"])
def test_malformed_mass_and_jacobian_arguments(entry):
    rng = np.random.default_rng(3)
    run = ENTRY[entry]
    eye = np.eye(N)
    for what, M in (("mass", eye), ("jac", A)):
        for label, m in mangled_sparse(rng, M):
            check("%s %s %s" % (entry, what, label), lambda: run(f, Y0, **{what: m}), False)
        for label, m, valid in [
                ("complex", M + 0j, False), ("object", M.astype(object), False),
                ("strings", M.astype(str), False), ("3-D", M[None], False),
                ("too large", np.eye(N + 1), False), ("NaN", M * np.nan, None),
                ("lil", scipy.sparse.lil_matrix(M), True),
                ("dok", scipy.sparse.dok_matrix(M), True),
                ("bsr", scipy.sparse.bsr_matrix(M), True),
                ("nested lists", M.tolist(), True)]:
            check("%s %s %s" % (entry, what, label), lambda: run(f, Y0, **{what: m}), valid)
    for label, m in mangled_sparse(rng, A != 0):
        if label.endswith("complex"):
            continue  # a pattern of complex entries is still a pattern
        check("%s jac_sparsity %s" % (entry, label), lambda: run(f, Y0, jac_sparsity=m), False)


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_faulty_right_hand_sides(entry):
    rng = np.random.default_rng(4)
    run = ENTRY[entry]
    for fault, valid in Faulty.FAULTS.items():
        after = int(rng.integers(0, 6))
        fun = Faulty(fault, after)
        check("%s f %s after %d calls" % (entry, fault, after), lambda: run(fun, Y0), valid)


@pytest.mark.parametrize("entry", ["solve_ivp", "Integrator", "solve_many"])
def test_faulty_jacobians(entry):
    rng = np.random.default_rng(5)
    run = ENTRY[entry]
    for sparsity in (None, A != 0):
        kw = {} if sparsity is None else dict(jac_sparsity=sparsity)
        for label, m in mangled_sparse(rng, A):
            check("%s jac returns %s" % (entry, label),
                  lambda: run(f, Y0, jac=lambda t, y, *p: m, **kw), False)
        for fault, valid in Faulty.FAULTS.items():
            if fault in ("too long", "too short", "list", "tuple", "strided", "resizes",
                         "NaN", "recoverable forever"):
                continue  # vector faults; a NaN Jacobian only slows Newton down
            jac = Faulty(fault, int(rng.integers(0, 3)), rhs=lambda t, y, *p: A)
            check("%s jac %s" % (entry, fault), lambda: run(f, Y0, jac=jac, **kw), valid)


@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_faulty_events_and_actions(entry):
    rng = np.random.default_rng(6)
    run = ENTRY[entry]
    for fault, valid in Faulty.FAULTS.items():
        if fault in ("too long", "too short", "column", "resizes", "list", "tuple", "strided",
                     "big-endian", "recoverable forever"):
            continue  # vector faults (an event returns one number)
        after = int(rng.integers(0, 4))
        ev = Faulty(fault, after, rhs=lambda t, y, *p: y[0] + 10.0)  # never crosses zero
        check("%s event %s" % (entry, fault), lambda: run(f, Y0, events=[ev]), valid)
    for label, out, valid in [("complex", lambda y: y + 1j, False),
                              ("too long", lambda y: np.append(y, 1.0), False),
                              ("strings", lambda y: y.astype(str), False),
                              ("same state", lambda y: y, True)]:
        def crossing(t, y, *p):
            return y[2] - 1.5  # y3 falls through 1.5 once

        crossing.action = lambda t, y, *p: out(y)
        check("%s action %s" % (entry, label), lambda: run(f, Y0, events=[crossing]), valid)


def test_random_parameters_and_params_rows():
    rng = np.random.default_rng(7)
    for label, v, valid in bad_vectors(rng, np.array([1.0, 1.0, 1.0])):
        if label in ("huge", "too long", "too short", "list", "big-endian", "strided",
                     "row matrix", "column"):
            continue  # valid parameter vectors (p scales f only through p[0])
        check("solve_ivp p %s" % label,
              lambda: daekit.solve_ivp(f_p, (0, T1), Y0, p=v, **TOL), valid)
        check("solve_many params %s" % label,
              lambda: daekit.solve_many(f_p, np.atleast_2d(v), t_span=(0, T1), y0=Y0, **TOL),
              valid)


@pytest.mark.parametrize("implicit", ["solve_dae", "Integrator"])
def test_faulty_implicit_jacobians_and_sparsity(implicit):
    # F(t, y, y') = y' - A y: the Jacobian pair (dF/dy, dF/dy') = (-A, I)
    rng = np.random.default_rng(8)

    def F(t, y, yp):
        return yp - A @ y

    def run(**kw):
        if implicit == "solve_dae":
            return daekit.solve_dae(F, (0, T1), Y0, yp0=A @ Y0, **dict(TOL, **kw))
        it = daekit.Integrator(F, (0, T1), Y0, implicit=True, yp0=A @ Y0, **dict(TOL, **kw))
        it.solve_until(T1)
        return it.result()

    check("%s exact Jacobians" % implicit,
          lambda: run(jac=(lambda t, y, yp: -A, lambda t, y, yp: np.eye(N))), True)
    for label, m in mangled_sparse(rng, -A):
        check("%s dF/dy returns %s" % (implicit, label),
              lambda: run(jac=(lambda t, y, yp: m, lambda t, y, yp: np.eye(N))), False)
    for label, m in mangled_sparse(rng, A != 0):
        if not label.endswith("complex"):
            check("%s jac_sparsity %s" % (implicit, label), lambda: run(jac_sparsity=m), False)
