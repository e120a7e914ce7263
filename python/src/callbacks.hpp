// Callbacks of the Python module: Python callables (called with the GIL re-acquired, their
// exceptions turned into C++ exceptions carrying the Python traceback) and compiled callbacks
// (C function pointers from a scipy LowLevelCallable, a numba cfunc or a shared library, called
// without the GIL). Shared by the two translation units of the module.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "daekit/daekit.hpp"

namespace daekit::python {

namespace py = pybind11;

/// A Python object that may be copied and destroyed without the GIL (solves copy their problem
/// on worker threads): copies share it through a shared_ptr; the last one drops the reference
/// with the GIL held.
struct PyRef {
  py::object obj;
  explicit PyRef(py::object o) : obj(std::move(o)) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!Py_IsInitialized()) {
      obj.release();  // interpreter gone: leak rather than touch it
      return;
    }
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
};
using PyRefPtr = std::shared_ptr<PyRef>;

/// The C signatures of compiled callbacks (docs/python.md). Every function returns 0 on
/// success, a positive value to ask for a smaller step (daekit::RecoverableError) and a negative
/// value for a fatal error (the solve ends with status callback_error). Matrices are n x n in
/// column-major order (J[i + n * j] = d out_i / d y_j).
enum class CompiledKind : int {
  /// int f(double t, double *y, double *out, int n, double *p, int np, void *user_data)
  /// (also the dense Jacobian of M y' = f: out is the n x n matrix)
  Rhs = 0,
  /// int F(double t, double *y, double *yp, double *out, int n, double *p, int np, void *ud)
  /// (also dF/dy and dF/dy' of F(t, y, y') = 0: out is the n x n matrix)
  Residual = 1,
  /// double r(double t, double *y, double *yp, int n, double *p, int np, void *user_data)
  Event = 2,
};

/// A compiled callback: its address, kind and the user_data pointer passed to it.
struct Compiled {
  CompiledKind kind = CompiledKind::Rhs;
  std::uintptr_t address = 0;
  std::uintptr_t user_data = 0;
  std::string name;  ///< for messages ("vdp_rhs")
};

using RhsFn = int (*)(double, const double*, double*, int, const double*, int, void*);
using ResidualFn = int (*)(double, const double*, const double*, double*, int, const double*, int,
                           void*);
using EventFn = double (*)(double, const double*, const double*, int, const double*, int, void*);

/// Throws for a non-zero return code of a compiled callback.
void compiled_failed(const Compiled& c, int code);

/// A Python callable with the extra positional arguments it is called with (scipy's args) and
/// whether it also takes the solve's parameter vector p as its last argument.
struct PyCallable {
  PyRefPtr fn;
  PyRefPtr args;  // a tuple
  bool pass_p = false;
  std::string name;  // "f", "jac", ... for messages
  /// The numpy arrays of the last call (y, yp, p), reused by the next call when the callback
  /// kept no reference to them (CallArrays); None when there is none to reuse. Shared by the
  /// copies of the callable and touched only with the GIL held.
  std::array<PyRefPtr, 3> spare;
};

/// Converts the pending Python exception (GIL held) into a C++ exception with the traceback
/// text: daekit::RecoverableError for daekit.RecoverableError, std::runtime_error otherwise.
[[noreturn]] void rethrow_python(py::error_already_set& e);

/// The Python exception type daekit.RecoverableError (set when the module is imported).
py::object& recoverable_error_type();

/// A numpy copy of n doubles.
inline py::array_t<double> to_array(const double* data, Eigen::Index n) {
  return py::array_t<double>(static_cast<py::ssize_t>(n), data);
}

/// Calls c(t, arrays..., *args[, p]) with the GIL held; returns the result.
py::object call_python(const PyCallable& c, double t, std::initializer_list<py::handle> arrays,
                       const VecIn* p);

/// The numpy arrays a Python callback is called with (its states y[, yp] and, with pass_p, the
/// parameters p), filled with the values of one call (GIL held). A call does not allocate them
/// afresh: it takes the arrays of the callable's previous call, and gives them back after the
/// call only if the callback kept no reference to them (reference count one: e.g. a callback that
/// stores y in a list gets a new array at its next call, so what it stored keeps its values). An
/// array the callback changed in place (values, shape, dtype) is refilled or replaced; an
/// array in use (re-entrant calls, other threads while the callback runs) is never shared: the
/// slot is empty until the call gives it back.
class CallArrays {
 public:
  CallArrays(const PyCallable& c, std::initializer_list<const VecIn*> states, const VecIn* p);
  CallArrays(const CallArrays&) = delete;
  CallArrays& operator=(const CallArrays&) = delete;
  ~CallArrays();
  /// c(t, y[, yp], *args[, p]) (vectorcall: no argument tuple); throws error_already_set.
  py::object call(double t) const;

 private:
  const PyCallable& c_;
  std::array<py::object, 3> arrays_;
  size_t n_states_ = 0;
  bool with_p_ = false;
};

/// c(t, y[, yp], *args[, p]) with reused arguments (CallArrays); read(result) reads the result
/// before the arrays are given back.
template <class Read>
void call_python(const PyCallable& c, double t, std::initializer_list<const VecIn*> states,
                 const VecIn* p, Read&& read) {
  CallArrays arrays(c, states, p);
  py::object r = arrays.call(t);
  read(r);
}

// Results of Python callbacks. Each throws std::runtime_error naming the callback `what` (the
// solve ends with status callback_error) for anything but real numbers of the expected shape:
// None, complex values (never cast to real), objects, strings, other shapes (an (n, 1) array is
// not a vector of n values), malformed sparse matrices (indices out of range, index pointers
// that decrease or disagree with the data: checked before anything is read).

/// Copies a vector of n values (a number when n = 1) into out.
void read_vector(const py::handle& result, VecOut out, const std::string& what);
/// A number (an array of one value).
double read_scalar(const py::handle& result, const std::string& what);
/// Copies an (n, m) array or scipy sparse matrix into out.
void read_matrix(const py::handle& result, Eigen::Ref<Matrix> out, const std::string& what);
/// Writes the values of a dense array or a scipy sparse matrix into the entries of a sparse
/// matrix's pattern (entries outside the pattern are an error unless zero).
void read_sparse(const py::handle& result, SparseMatrix& out, const std::string& what);

}  // namespace daekit::python
