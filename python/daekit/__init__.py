"""daekit: differential-algebraic equations in Python (Radau IIA of order 5, BDF, ...).

    import daekit
    res = daekit.solve_ivp(f, (0, 10), y0, mass=M)           # M y' = f(t, y), scipy's API
    res = daekit.solve_dae(F, (0, 1), y0, algebraic=[2])      # F(t, y, y') = 0
    res = daekit.solve_problem("andrews")                     # a built-in problem
    ens = daekit.solve_many("andrews", torques, threads=2)     # an ensemble

See docs/python.md (and the migration table from scipy.integrate.solve_ivp there).
"""

from ._daekit import RecoverableError, __version__
from ._compiled import (EVENT, RESIDUAL, RHS, SIGNATURES, LibraryFunction, compiled,
                        from_library, numba_signature, signature_of)
from ._ivp import (BuiltinProblem, DaeResult, DenseSolution, Event, Integrator, Switch, banded,
                   method_info, methods, problem, problems, scd, solve_dae, solve_ivp,
                   solve_problem)
from ._mechanical import FORMULATIONS, MechanicalSystem
from ._ensemble import CompiledProblem, EnsembleResult, solve_many
from ._plot import plot_result
from ._adjoint import AdjointResult, adjoint_gradient

__all__ = [
    "RecoverableError", "__version__", "EVENT", "RESIDUAL", "RHS", "SIGNATURES",
    "LibraryFunction", "compiled", "from_library", "numba_signature", "signature_of",
    "BuiltinProblem", "DaeResult", "DenseSolution", "Event", "Integrator", "Switch", "banded",
    "method_info", "methods", "problem", "problems", "scd", "solve_dae", "solve_ivp",
    "solve_problem", "FORMULATIONS", "MechanicalSystem", "CompiledProblem", "EnsembleResult",
    "solve_many", "plot_result", "AdjointResult", "adjoint_gradient",
]
