"""Checks of the arrays that cross into the compiled core.

daekit solves real equations: an array of complex numbers, objects or strings is refused with a
message naming the argument instead of being cast (numpy's casts drop imaginary parts and parse
strings), and an array of the wrong shape is refused instead of being reshaped or truncated.
Sparse matrices are validated before scipy converts them (scipy's conversions index without
bounds checks): index pointers start at 0, never decrease and end at the number of stored
entries; indices lie inside the shape; data has one value per index.  The compiled module calls
``sparse_coo`` for sparse matrices returned by callbacks."""

import numpy as np

_REAL_KINDS = "biuf"  # bool, signed and unsigned integers, floating point


def real_array(x, name, shape=None, ndim=None):
    """``x`` as a float64 array; TypeError for complex, object or string values, ValueError for
    a shape other than ``shape`` (a tuple, -1 for any length) or a number of dimensions outside
    ``ndim`` (an int or a tuple of allowed ones)."""
    if x is None:
        raise TypeError("%s must be an array of real numbers, got None" % name)
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as e:  # ragged nested sequences
        raise ValueError("%s must be an array of real numbers: %s" % (name, e)) from None
    _check_kind(a.dtype, name)
    if ndim is not None:
        allowed = (ndim,) if np.isscalar(ndim) else tuple(ndim)
        if a.ndim not in allowed:
            kinds = {0: "a number", 1: "a vector", 2: "a matrix"}
            raise ValueError("%s must be %s, got an array of shape %s" % (
                name, " or ".join(kinds.get(d, "%d-dimensional" % d) for d in allowed),
                a.shape))
    if shape is not None:
        if a.ndim != len(shape) or any(s not in (-1, d) for s, d in zip(shape, a.shape)):
            want = "(%s)" % ", ".join("n" if s == -1 else str(s) for s in shape)
            if len(shape) == 1:
                want = want[:-1] + ",)"
            raise ValueError("%s must have shape %s, got %s" % (name, want, a.shape))
    return a.astype(float)


def _check_kind(dtype, name, returned=False):
    if dtype.kind == "c":
        raise TypeError("%s %s complex values: daekit solves real equations (write the real "
                        "and imaginary parts as separate components)"
                        % (name, "returned" if returned else "has"))
    if dtype.kind not in _REAL_KINDS:
        raise TypeError("%s must %s an array of real numbers, got dtype %s"
                        % (name, "return" if returned else "be", dtype))


def real_vector(x, name, n=None):
    """A one-dimensional float64 array (a number counts as one value) of length n if given."""
    a = real_array(x, name, ndim=(0, 1))
    a = np.atleast_1d(a)
    if n is not None and a.size != n:
        raise ValueError("%s must have %d values, got %d" % (name, n, a.size))
    return a


def real_scalar_or_vector(x, name, n):
    """A number, or a vector of n values (atol)."""
    if np.isscalar(x) and not isinstance(x, (str, bytes)):
        return float(real_array(x, name))
    v = real_vector(x, name, n)
    if v.size == 0:
        raise ValueError("%s must be a number or a vector of n values, got an empty array" % name)
    return v


def is_sparse(m):
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover (scipy is a dependency of the tests only)
        return False
    return scipy.sparse.issparse(m)


def _index_array(x, name, what):
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError("%s: %s must be one-dimensional, got shape %s" % (name, what, a.shape))
    if a.size and a.dtype.kind not in "iu":
        raise TypeError("%s: %s must be integers, got dtype %s" % (name, what, a.dtype))
    return a.astype(np.int64)


def _check_range(idx, bound, name, what):
    if idx.size and (idx.min() < 0 or idx.max() >= bound):
        bad = idx[(idx < 0) | (idx >= bound)][0]
        raise ValueError("%s: %s index %d outside [0, %d)" % (name, what, bad, bound))


def _compressed(indptr, indices, major, name):
    """(major index, minor index) of each entry of a CSR/CSC structure, after checking its
    index pointers (the caller checks the range of the minor indices)."""
    indptr = _index_array(indptr, name, "indptr")
    indices = _index_array(indices, name, "indices")
    if indptr.size != major + 1:
        raise ValueError("%s: indptr has %d values, expected %d" % (name, indptr.size, major + 1))
    if indptr[0] != 0:
        raise ValueError("%s: indptr must start at 0, got %d" % (name, indptr[0]))
    if np.any(np.diff(indptr) < 0):
        raise ValueError("%s: indptr decreases" % name)
    if indptr[-1] != indices.size:
        raise ValueError("%s: indptr ends at %d but there are %d indices"
                         % (name, indptr[-1], indices.size))
    return np.repeat(np.arange(major, dtype=np.int64), np.diff(indptr)), indices


def sparse_coo(m, shape, name, values=True, returned=False):
    """(rows, cols, data) of a scipy sparse matrix of the given shape, after checking its arrays;
    ``values=False`` (a sparsity pattern) accepts any data; ``returned``: m is what the
    callback ``name`` returned (for the messages)."""
    label = name + " returned a sparse matrix" if returned else name
    if tuple(m.shape) != tuple(shape):
        raise ValueError("%s of shape %s, expected %s" % (
            label if returned else name + ": a sparse matrix", tuple(m.shape), tuple(shape)))
    rows, cols, data = _coo_arrays(m, shape, label)
    if data.ndim != 1 or data.size != rows.size:
        raise ValueError("%s: %d stored values for %d indices" % (label, data.size, rows.size))
    if values:
        _check_kind(data.dtype, name, returned)
        data = data.astype(float)
    else:
        data = np.ones(rows.size)
    return rows, cols, data


def _coo_arrays(m, shape, name):
    """(rows, cols, data) of a sparse matrix, its indices checked (not its data)."""
    fmt = getattr(m, "format", None)
    rows_n, cols_n = shape
    if fmt in ("csr", "csc"):
        data = np.asarray(m.data)
        major, minor = (rows_n, cols_n) if fmt == "csr" else (cols_n, rows_n)
        maj, mnr = _compressed(m.indptr, m.indices, major, name)
        _check_range(mnr, minor, name, "column" if fmt == "csr" else "row")
        rows, cols = (maj, mnr) if fmt == "csr" else (mnr, maj)
    elif fmt == "bsr":
        data = np.asarray(m.data)
        R, C = m.blocksize
        if data.ndim != 3 or data.shape[1:] != (R, C):
            raise ValueError("%s: BSR data must have shape (nnzb, %d, %d), got %s"
                             % (name, R, C, data.shape))
        brow, bcol = _compressed(m.indptr, m.indices, rows_n // R, name)
        _check_range(bcol, cols_n // C, name, "block column")
        if data.shape[0] != bcol.size:
            raise ValueError("%s: %d blocks of data for %d block indices"
                             % (name, data.shape[0], bcol.size))
        rr, cc = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
        rows = (brow[:, None, None] * R + rr).ravel()
        cols = (bcol[:, None, None] * C + cc).ravel()
        data = data.reshape(-1)
    else:
        coo = m if fmt == "coo" else m.tocoo()  # dia, lil, dok: built in numpy/Python
        data = np.asarray(coo.data)
        rows = _index_array(coo.row, name, "row")
        cols = _index_array(coo.col, name, "col")
        if rows.size != cols.size:
            raise ValueError("%s: %d row indices but %d column indices"
                             % (name, rows.size, cols.size))
        _check_range(rows, rows_n, name, "row")
        _check_range(cols, cols_n, name, "column")
    return rows, cols, data


def sparse_csc(m, shape, name, values=True):
    """('csc', indptr, indices, data) of a checked scipy sparse matrix (duplicates summed,
    indices sorted) for the compiled core."""
    import scipy.sparse
    rows, cols, data = sparse_coo(m, shape, name, values)
    csc = scipy.sparse.csc_matrix((data, (rows, cols)), shape=tuple(shape))
    csc.sort_indices()
    if not values:
        csc.data[:] = 1.0  # duplicates were summed: a pattern stays 0/1
    return ("csc", csc.indptr.astype(np.int64), csc.indices.astype(np.int64),
            csc.data.astype(float))
