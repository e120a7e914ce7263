"""Ensembles: one problem solved for many parameter sets, on threads in this process (the GIL
released inside the solver), on a Dask distributed cluster or over MPI ranks.

Problems travel by reference, never as pickled closures: a built-in problem by its name, a
problem with compiled callbacks by the path of its shared library and the symbol names
(``CompiledProblem``).  Python callables and in-process problems work on threads only."""

import os

import numpy as np

from . import _daekit
from ._compiled import LibraryFunction
from ._ivp import (_events, _index, _mass, _method_name, _prepare_mass, _sparsity,
                   problem as _builtin)

_NOT_REMOTE = ("events", "trace", "step_callback")


class CompiledProblem:
    """``M y' = f(t, y, p)`` with compiled callbacks in a shared library, by reference::

        lib = "/path/libmodels.so"
        spec = daekit.CompiledProblem(daekit.from_library(lib, "vdp_rhs"), y0=[2, 0],
                                      t_span=(0, 2), jac=daekit.from_library(lib, "vdp_jac"))

    It pickles as paths, symbol names and arrays, so Dask workers and MPI ranks rebuild it."""

    def __init__(self, f, y0, t_span, jac=None, mass=None, index=None, p=None,
                 jac_sparsity=None, name="compiled problem"):
        for what, fn in (("f", f), ("jac", jac)):
            if fn is not None and not isinstance(fn, LibraryFunction):
                raise TypeError("CompiledProblem: %s must be daekit.from_library(...)" % what)
        self.f, self.jac = f, jac
        self.y0 = np.atleast_1d(np.asarray(y0, dtype=float))
        self.t_span = (float(t_span[0]), float(t_span[1]))
        self.mass = None if mass is None else np.asarray(mass, dtype=float)
        self.index = index
        self.p = None if p is None else np.asarray(p, dtype=float)
        self.jac_sparsity = jac_sparsity
        self.name = name

    def build(self):
        """The in-process problem (loads the library here)."""
        n = self.y0.size
        return _daekit._make_mass_problem(
            n, self.f.resolve(), None if self.jac is None else self.jac.resolve(),
            _sparsity(self.jac_sparsity, n), _mass(self.mass, n), _index(self.index, n),
            self.p, [], self.name, (), False)


class EnsembleResult:
    """The runs of solve_many, in the order of the parameter sets: ``y`` (N, n) the states
    reached, ``t`` (N,) the times reached, ``status`` (daekit's status names), ``success``,
    ``message``, ``stats`` (a dict of (N,) arrays, one per counter), ``cpu_seconds`` and
    ``runs`` (one dict per run, with ``t_out``/``y_out`` when ``t_eval`` was given)."""

    def __init__(self, runs):
        self.runs = runs
        self.y = np.array([r["y"] for r in runs])
        self.t = np.array([r["t"] for r in runs])
        self.status = [r["status"] for r in runs]
        self.success = np.array([r["ok"] for r in runs], dtype=bool)
        self.message = [r["message"] for r in runs]
        keys = runs[0]["stats"].keys() if runs else []
        self.stats = {k: np.array([r["stats"][k] for r in runs]) for k in keys}
        self.cpu_seconds = np.array([r["cpu_seconds"] for r in runs])

    def __len__(self):
        return len(self.runs)

    def __getitem__(self, i):
        return self.runs[i]

    def __repr__(self):
        return "<EnsembleResult: %d runs, %d successful>" % (len(self), int(self.success.sum()))


def _summary(r, i, p):
    return dict(run=int(i), p=np.asarray(p, dtype=float), status=r.status, ok=r.ok,
                message=r.message, t=r.t, y=r.y, stats=r.stats, cpu_seconds=r.cpu_seconds,
                t_out=r.t_out, y_out=r.y_out)


def _settings(spec, t_span, y0, rtol, atol, first_step, options):
    """(builtin holder or None, problem, t0, t1, y0 rows or None, options dict)."""
    opts = {}
    holder = None
    if isinstance(spec, str):
        bp = _builtin(spec)
        holder = bp._h
        prob = None
        opts.update(bp.recommended_options())
        t_span = t_span or bp.t_span
    elif isinstance(spec, CompiledProblem):
        prob = spec.build()
        t_span = t_span or spec.t_span
        y0 = spec.y0 if y0 is None else y0
    elif isinstance(spec, _daekit.MassProblem):
        prob = spec
    else:
        raise TypeError("solve_many: unsupported problem %r" % (spec,))
    if t_span is None:
        raise ValueError("solve_many: t_span is needed")
    if prob is not None and y0 is None:
        raise ValueError("solve_many: y0 is needed")
    for k, v in (("rtol", rtol), ("atol", atol), ("first_step", first_step)):
        if v is not None:
            opts[k] = v
    opts.setdefault("rtol", 1e-3)
    opts.setdefault("atol", 1e-6)
    if opts.get("first_step") is None:
        opts.pop("first_step", None)
    if not np.isscalar(opts["atol"]):
        opts["atol"] = np.asarray(opts["atol"], dtype=float)
    opts.update(options)
    if opts.get("events") is not None:  # each run's parameters reach its events (and actions)
        opts["events"] = _events(opts["events"], False, True)[0]
    opts.setdefault("store_steps", False)
    y0rows = None if y0 is None else np.atleast_2d(np.asarray(y0, dtype=float))
    return holder, prob, float(t_span[0]), float(t_span[1]), y0rows, opts


def _solve_local(spec, params, indices, t_span, y0, method, tableau, rtol, atol, first_step,
                 threads, options):
    """Solves the runs `indices` of `params` here, on `threads` threads; list of summaries."""
    holder, prob, t0, t1, y0rows, opts = _settings(spec, t_span, y0, rtol, atol, first_step,
                                                   options)
    P = np.asarray(params, dtype=float)[indices]
    if y0rows is not None and y0rows.shape[0] > 1:
        y0rows = y0rows[indices]
    if len(P) == 0:
        return []
    results = _daekit._solve_many(prob, holder, t0, t1, y0rows, P, _method_name(method), tableau,
                                  opts, (), True, int(threads))
    return [_summary(r, i, p) for r, i, p in zip(results, indices, P)]


def _params_matrix(params):
    P = np.asarray(params, dtype=float)
    if P.ndim == 1:
        P = P.reshape(-1, 1)
    if P.ndim != 2:
        raise ValueError("params must be an (N, np) array (one row per run) or a vector")
    return P


def _dask_chunk(spec, params, indices, kwargs):
    """A Dask task: the runs `indices` (one thread per worker thread)."""
    return _solve_local(spec, params, indices, threads=1, **kwargs)


def solve_many(problem, params, t_span=None, y0=None, method="radau5", *, backend="threads",
               threads=None, client=None, comm=None, chunks=None, rtol=None, atol=None,
               first_step=None, tableau=None, **options):
    """Solves ``problem`` once per row of ``params`` (its parameter vector p for that run).

    problem
        a built-in problem's name (its recommended tolerances and interval are the defaults;
        mechanical problems get consistent initial values for each p), a ``CompiledProblem``,
        or (threads only) a problem object or a Python callable ``f(t, y, p)``.
    params
        an (N, np) array, one parameter vector per run (a vector: one parameter).
    y0
        one initial vector, or one per run.
    backend
        ``"threads"`` (``threads`` worker threads, default the number of CPUs), ``"dask"``
        (``client``: a ``dask.distributed.Client``; ``chunks`` tasks, default 4 per worker)
        or ``"mpi"`` (``comm``, default ``mpi4py.MPI.COMM_WORLD``: each rank solves a block of
        runs, every rank gets all results).
    **options
        as solve_ivp's (``t_eval``, ``max_steps``, ``linear_solver``, ``events``, ...); event
        functions and actions get the run's parameters as their last argument, ``(t, y, p)``
        (threads only: other backends take no Python callables).

    Returns an ``EnsembleResult``; the same problem and parameters give bit-identical results
    on every backend.
    """
    P = _params_matrix(params)
    if "t_eval" in options and options["t_eval"] is not None:
        options["t_eval"] = np.asarray(options["t_eval"], dtype=float)
    kwargs = dict(t_span=t_span, y0=y0, method=method, tableau=tableau, rtol=rtol, atol=atol,
                  first_step=first_step, options=options)
    indices = np.arange(len(P))
    if backend == "threads":
        if callable(problem) and not isinstance(problem, (str, CompiledProblem)):
            if y0 is None or t_span is None:
                raise ValueError("solve_many: y0 and t_span are needed for a callable")
            problem = _prepare_mass(problem, t_span, np.atleast_2d(y0)[0], None, None, None,
                                    None, np.zeros(P.shape[1]), (), None, "user problem")
        n = threads or os.cpu_count() or 1
        return EnsembleResult(_solve_local(problem, P, indices, threads=n, **kwargs))
    if not isinstance(problem, (str, CompiledProblem)):
        raise TypeError("solve_many with backend %r: problems travel by reference, give a "
                        "built-in problem's name or a daekit.CompiledProblem (got %s)"
                        % (backend, type(problem).__name__))
    for k in _NOT_REMOTE:
        if options.get(k) is not None:
            raise TypeError("solve_many with backend %r: option %r would send a Python "
                            "callable to other processes" % (backend, k))
    if backend == "dask":
        if client is None:
            raise ValueError("backend 'dask' needs client= (a dask.distributed.Client)")
        if chunks is None:
            workers = max(1, sum(client.nthreads().values()))
            chunks = min(len(P), 4 * workers)
        parts = [c for c in np.array_split(indices, max(1, chunks)) if len(c)]
        futures = client.map(_dask_chunk, [problem] * len(parts), [P] * len(parts), parts,
                             [kwargs] * len(parts), pure=False)
        runs = [r for part in client.gather(futures) for r in part]
        return EnsembleResult(runs)
    if backend == "mpi":
        if comm is None:
            from mpi4py import MPI
            comm = MPI.COMM_WORLD
        size, rank = comm.Get_size(), comm.Get_rank()
        mine = np.array_split(indices, size)[rank]
        local = _solve_local(problem, P, mine, threads=threads or 1, **kwargs)
        runs = [r for part in comm.allgather(local) for r in part]
        return EnsembleResult(runs)
    raise ValueError("backend must be 'threads', 'dask' or 'mpi', got %r" % (backend,))
