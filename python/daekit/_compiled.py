"""Compiled callbacks: C functions that the solver calls without the GIL.

A compiled callback is given as a scipy ``LowLevelCallable``, a numba ``cfunc``, a ctypes
function pointer or a symbol of a shared library (``from_library``).  Its C signature must be
one of (every function returns 0 on success, > 0 to ask for a smaller step, < 0 for a fatal
error; matrices are n x n in column-major order, ``J[i + n*j] = d out_i / d y_j``):

``RHS``       ``int f(double t, double *y, double *out, int n, double *p, int np, void *ud)``
              (f of ``M y' = f`` and its Jacobian ``jac``)
``RESIDUAL``  ``int F(double t, double *y, double *yp, double *out, int n, double *p, int np,
              void *ud)`` (F of ``F(t, y, y') = 0`` and its Jacobians ``jac_y``, ``jac_yp``)
``EVENT``     ``double r(double t, double *y, double *yp, int n, double *p, int np, void *ud)``
"""

import ctypes
import os

from . import _daekit

RHS = 0
RESIDUAL = 1
EVENT = 2

SIGNATURES = {
    RHS: "int (double, double *, double *, int, double *, int, void *)",
    RESIDUAL: "int (double, double *, double *, double *, int, double *, int, void *)",
    EVENT: "double (double, double *, double *, int, double *, int, void *)",
}
_KIND_NAMES = {RHS: "RHS", RESIDUAL: "RESIDUAL", EVENT: "EVENT"}

_CTYPES_NAMES = [
    (ctypes.c_double, "double"),
    (ctypes.c_int, "int"),
    (ctypes.c_long, "long"),
    (ctypes.c_void_p, "void *"),
]


def _normalize(signature):
    return "".join(signature.replace("const", "").split())


def _ctype_name(t):
    if t is None:
        return "void"
    for ct, name in _CTYPES_NAMES:
        if t is ct:
            return name
    if hasattr(t, "_type_"):  # a POINTER type
        inner = t._type_
        if inner is ctypes.c_double:
            return "double *"
        if inner is ctypes.c_int:
            return "int *"
        return "void *"
    return "?"


def _ctypes_signature(fn):
    args = ", ".join(_ctype_name(a) for a in (fn.argtypes or ()))
    return "%s (%s)" % (_ctype_name(fn.restype), args)


def signature_of(obj):
    """The C signature string of a compiled callback (as scipy.LowLevelCallable writes it)."""
    return _resolve(obj)[1]


def _resolve(obj):
    """(address, signature or None, user_data, name) of a compiled callable."""
    # a bare address (numba cfunc.address, a pointer from another library): no signature known
    if isinstance(obj, int) and not isinstance(obj, bool):
        if obj <= 0:
            raise ValueError("a function address must be positive, got %d" % obj)
        return obj, None, 0, "function at 0x%x" % obj
    # scipy.LowLevelCallable: a tuple (capsule, function, user_data capsule or None)
    if type(obj).__name__ == "LowLevelCallable" and isinstance(obj, tuple):
        capsule = tuple.__getitem__(obj, 0)
        signature, address = _daekit._capsule_pointer(capsule)
        ud = tuple.__getitem__(obj, 2)
        user_data = _daekit._capsule_pointer(ud)[1] if ud is not None else 0
        name = getattr(tuple.__getitem__(obj, 1), "__name__", "LowLevelCallable")
        return address, signature, user_data, name
    # numba cfunc: has .address and .ctypes
    if hasattr(obj, "address") and hasattr(obj, "ctypes"):
        name = getattr(obj, "__name__", None) or getattr(
            getattr(obj, "_pyfunc", None), "__name__", "cfunc")
        return int(obj.address), _ctypes_signature(obj.ctypes), 0, name
    # ctypes function pointer (CFUNCTYPE instance or a function of a CDLL with argtypes set)
    if isinstance(obj, ctypes._CFuncPtr):
        address = ctypes.cast(obj, ctypes.c_void_p).value
        signature = _ctypes_signature(obj) if obj.argtypes is not None else None
        return address, signature, 0, getattr(obj, "__name__", "ctypes function")
    raise TypeError("not a compiled callback: %r" % (obj,))


def is_compiled(obj):
    """True for the objects daekit calls as C functions."""
    if isinstance(obj, _daekit.Compiled):
        return True
    if type(obj).__name__ == "LowLevelCallable" and isinstance(obj, tuple):
        return True
    if hasattr(obj, "address") and hasattr(obj, "ctypes"):
        return True
    return isinstance(obj, ctypes._CFuncPtr)


def compiled(obj, kind, user_data=None):
    """A ``_daekit.Compiled`` of the given kind (RHS, RESIDUAL, EVENT) from a LowLevelCallable,
    numba cfunc, ctypes function or a bare function address (an int: its signature cannot be
    checked), after checking its signature; ``user_data`` (an int or a ctypes pointer) is passed
    as the last argument of every call."""
    if isinstance(obj, _daekit.Compiled):
        if obj.kind != kind:
            raise TypeError("compiled callback %s is a %s, expected a %s" % (
                obj.name, _KIND_NAMES[obj.kind], _KIND_NAMES[kind]))
        return obj
    address, signature, ud, name = _resolve(obj)
    if signature is not None and _normalize(signature) != _normalize(SIGNATURES[kind]):
        raise TypeError(
            "compiled callback %s has the signature '%s'; as a %s it needs '%s'"
            % (name, signature, _KIND_NAMES[kind], SIGNATURES[kind]))
    if user_data is not None:
        ud = user_data if isinstance(user_data, int) else ctypes.cast(
            user_data, ctypes.c_void_p).value or 0
    return _daekit.Compiled(kind, address, ud, name)


class LibraryFunction:
    """A compiled callback by reference: a symbol of a shared library.  It pickles as the path
    and the symbol name, so it can be sent to other processes (Dask workers, MPI ranks), which
    load the library themselves."""

    def __init__(self, library, symbol, kind=RHS):
        if kind not in SIGNATURES:
            raise ValueError("kind must be daekit.RHS, daekit.RESIDUAL or daekit.EVENT")
        self.library = os.path.abspath(library)
        self.symbol = symbol
        self.kind = kind
        self._compiled = None

    def resolve(self):
        """The ``_daekit.Compiled`` (loads the library on first use in this process)."""
        if self._compiled is None:
            lib = ctypes.CDLL(self.library)
            try:
                fn = getattr(lib, self.symbol)
            except AttributeError:
                raise ValueError("symbol '%s' not found in %s" % (self.symbol, self.library))
            address = ctypes.cast(fn, ctypes.c_void_p).value
            self._compiled = _daekit.Compiled(self.kind, address, 0, self.symbol)
            self._library_handle = lib  # keep it loaded
        return self._compiled

    def __getstate__(self):
        return {"library": self.library, "symbol": self.symbol, "kind": self.kind}

    def __setstate__(self, state):
        self.__init__(state["library"], state["symbol"], state["kind"])

    def __repr__(self):
        return "LibraryFunction(%r, %r, kind=%s)" % (self.library, self.symbol,
                                                     _KIND_NAMES[self.kind])


def from_library(library, symbol, kind=RHS):
    """A compiled callback ``symbol`` of the shared library ``library`` (a path)."""
    return LibraryFunction(library, symbol, kind)


def numba_signature(kind=RHS):
    """The numba signature for ``@numba.cfunc`` of a callback of this kind."""
    from numba import types

    dp = types.CPointer(types.double)
    if kind == RHS:
        return types.intc(types.double, dp, dp, types.intc, dp, types.intc, types.voidptr)
    if kind == RESIDUAL:
        return types.intc(types.double, dp, dp, dp, types.intc, dp, types.intc, types.voidptr)
    if kind == EVENT:
        return types.double(types.double, dp, dp, types.intc, dp, types.intc, types.voidptr)
    raise ValueError("unknown kind %r" % (kind,))


def as_callback(obj, kind):
    """What the compiled core takes for a callback: a Python callable unchanged, anything
    compiled as a ``_daekit.Compiled``."""
    if obj is None:
        return None
    if isinstance(obj, LibraryFunction):
        if obj.kind != kind:
            raise TypeError("%r is not a %s" % (obj, _KIND_NAMES[kind]))
        return obj.resolve()
    if is_compiled(obj):
        return compiled(obj, kind)
    if callable(obj):
        return obj
    raise TypeError("a callback must be callable or compiled, got %r" % (obj,))
