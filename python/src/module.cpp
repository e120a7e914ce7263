// _daekit: the compiled part of the Python module daekit (python/daekit/ wraps it with the
// scipy-shaped API). Problems are built from Python callables or compiled callbacks
// (callbacks.hpp); every solve runs with the GIL released, so solves on several threads run in
// parallel as far as their callbacks allow (compiled and built-in callbacks never take the GIL).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "callbacks.hpp"
#include "daekit/daekit.hpp"

namespace daekit::python {
namespace {

// ---------------------------------------------------------------------------------------------
// Conversions.

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// An argument as a C-ordered array of doubles: numbers only (bool, integers, floating point);
/// complex values, objects and strings are refused (TypeError naming the argument), never cast.
DoubleArray real_argument(const py::handle& h, const std::string& what) {
  py::array a = py::array::ensure(h);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(what + " must be an array of real numbers");
  }
  const char kind = a.dtype().kind();
  if (kind == 'c') throw py::type_error(what + " has complex values: daekit solves real equations");
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
    throw py::type_error(what + " must be an array of real numbers, got dtype " +
                         py::str(a.dtype()).cast<std::string>());
  DoubleArray d = DoubleArray::ensure(a);
  if (!d) {
    PyErr_Clear();
    throw py::type_error(what + " must be an array of real numbers");
  }
  return d;
}

Vector to_vector(const py::handle& h, const std::string& what) {
  DoubleArray a = real_argument(h, what);
  if (a.ndim() > 1) throw py::value_error(what + " must be one-dimensional");
  Vector v(a.size());
  for (py::ssize_t i = 0; i < a.size(); ++i) v[i] = a.data()[i];
  return v;
}

Matrix to_matrix(const py::handle& h, const std::string& what) {
  DoubleArray a = real_argument(h, what);
  if (a.ndim() != 2) throw py::value_error(what + " must be two-dimensional");
  Matrix m(a.shape(0), a.shape(1));
  for (py::ssize_t i = 0; i < a.shape(0); ++i)
    for (py::ssize_t j = 0; j < a.shape(1); ++j) m(i, j) = a.data()[i * a.shape(1) + j];
  return m;
}

py::array_t<double> vector_array(const Vector& v) { return to_array(v.data(), v.size()); }

/// A sequence of n x np matrices (Result::s_out, s_steps: each flattened column by column) as
/// a C-ordered numpy array of shape (n, np, N).
py::array_t<double> sensitivity_array(const StateSequence& seq, Eigen::Index n, int np) {
  const py::ssize_t count = seq.size();
  py::array_t<double> a({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(np), count});
  auto r = a.mutable_unchecked<3>();
  for (py::ssize_t j = 0; j < count; ++j) {
    const auto column = seq[j];
    for (Eigen::Index k = 0; k < np; ++k)
      for (Eigen::Index i = 0; i < n; ++i) r(i, k, j) = column[k * n + i];
  }
  return a;
}

/// An n x N matrix (column-major) as a C-ordered numpy array of shape (n, N).
py::array_t<double> matrix_array(const Eigen::Ref<const Matrix>& m) {
  py::array_t<double> a({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  auto r = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) r(i, j) = m(i, j);
  return a;
}

using IndexArray = py::array_t<long long, py::array::c_style | py::array::forcecast>;

/// A one-dimensional array of integers (the index arrays of a sparse matrix).
IndexArray index_argument(const py::handle& h, const std::string& what) {
  py::array a = py::array::ensure(h);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(what + " must be an array of integers");
  }
  const char kind = a.dtype().kind();
  if ((kind != 'i' && kind != 'u') || a.ndim() != 1)
    throw py::type_error(what + " must be a one-dimensional array of integers");
  return IndexArray::ensure(a);
}

/// A sparse matrix from the CSC arrays of scipy (indptr, indices, data) of an n x n matrix,
/// after checking them: indptr has n + 1 values, starts at 0, never decreases and ends at the
/// number of indices; every index lies in [0, n); data has one value per index.
SparseMatrix csc_matrix(int n, const py::handle& indptr, const py::handle& indices,
                        const py::handle& data, const std::string& what) {
  const IndexArray p = index_argument(indptr, what + ": indptr");
  const IndexArray i = index_argument(indices, what + ": indices");
  const DoubleArray d = real_argument(data, what + ": data");
  const long long nnz = static_cast<long long>(i.size());
  if (p.size() != n + 1)
    throw py::value_error(what + ": indptr has " + std::to_string(p.size()) +
                          " values, expected n + 1 = " + std::to_string(n + 1));
  if (d.ndim() != 1 || d.size() != nnz)
    throw py::value_error(what + ": " + std::to_string(d.size()) + " values for " +
                          std::to_string(nnz) + " indices");
  if (p.data()[0] != 0) throw py::value_error(what + ": indptr must start at 0");
  for (int j = 0; j < n; ++j)
    if (p.data()[j + 1] < p.data()[j]) throw py::value_error(what + ": indptr decreases");
  if (p.data()[n] != nnz)
    throw py::value_error(what + ": indptr ends at " + std::to_string(p.data()[n]) +
                          ", expected the number of indices, " + std::to_string(nnz));
  std::vector<Eigen::Triplet<double, int>> t;
  t.reserve(static_cast<size_t>(nnz));
  for (int j = 0; j < n; ++j)
    for (long long k = p.data()[j]; k < p.data()[j + 1]; ++k) {
      const long long row = i.data()[k];
      if (row < 0 || row >= n)
        throw py::value_error(what + ": row index " + std::to_string(row) + " outside [0, " +
                              std::to_string(n) + ")");
      t.emplace_back(static_cast<int>(row), j, d.data()[k]);
    }
  SparseMatrix m(n, n);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// ---------------------------------------------------------------------------------------------
// Callbacks from Python objects: a Compiled, or a callable (with args and pass_p).

struct CallbackSpec {
  py::object args = py::tuple();
  bool pass_p = false;
};

PyCallable make_callable(const py::object& fn, const CallbackSpec& spec, const std::string& name) {
  PyCallable c;
  c.fn = std::make_shared<PyRef>(fn);
  c.args = std::make_shared<PyRef>(spec.args);
  c.pass_p = spec.pass_p;
  c.name = name;
  for (PyRefPtr& slot : c.spare) slot = std::make_shared<PyRef>(py::none());
  return c;
}

const Compiled* as_compiled(const py::object& fn, CompiledKind kind, const std::string& name) {
  if (!py::isinstance<Compiled>(fn)) return nullptr;
  const Compiled& c = fn.cast<const Compiled&>();
  if (c.kind != kind)
    throw py::type_error(name + ": the compiled callback has the wrong signature for this role");
  return &c;
}

// out = fn(t, y, *p) for a Python fn (the vector it returns read into out, sizes checked).
MassMatrixDae::Rhs python_rhs(const py::object& fn, const CallbackSpec& spec, const char* name) {
  PyCallable c = make_callable(fn, spec, name);
  return [c](double t, const VecIn& y, VecOut out, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y}, &p, [&](const py::object& r) { read_vector(r, out, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

MassMatrixDae::Rhs make_rhs(const py::object& fn, const CallbackSpec& spec, const char* name) {
  if (const Compiled* cp = as_compiled(fn, CompiledKind::Rhs, name)) {
    Compiled c = *cp;
    return [c](double t, const VecIn& y, VecOut out, const VecIn& p) {
      const int rc = reinterpret_cast<RhsFn>(c.address)(
          t, y.data(), out.data(), static_cast<int>(y.size()), p.data(), static_cast<int>(p.size()),
          reinterpret_cast<void*>(c.user_data));
      if (rc != 0) compiled_failed(c, rc);
    };
  }
  return python_rhs(fn, spec, name);
}

MassMatrixDae::Jacobian make_jacobian(const py::object& fn, const CallbackSpec& spec) {
  if (const Compiled* cp = as_compiled(fn, CompiledKind::Rhs, "jac")) {
    Compiled c = *cp;
    return [c](double t, const VecIn& y, Matrix& J, const VecIn& p) {
      const int rc = reinterpret_cast<RhsFn>(c.address)(
          t, y.data(), J.data(), static_cast<int>(y.size()), p.data(), static_cast<int>(p.size()),
          reinterpret_cast<void*>(c.user_data));
      if (rc != 0) compiled_failed(c, rc);
    };
  }
  PyCallable c = make_callable(fn, spec, "jac");
  return [c](double t, const VecIn& y, Matrix& J, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y}, &p, [&](const py::object& r) { read_matrix(r, J, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

MassMatrixDae::SparseJacobian make_sparse_jacobian(const py::object& fn, const CallbackSpec& spec) {
  PyCallable c = make_callable(fn, spec, "jac");
  return [c](double t, const VecIn& y, SparseMatrix& J, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y}, &p, [&](const py::object& r) { read_sparse(r, J, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

ImplicitDae::Residual make_residual(const py::object& fn, const CallbackSpec& spec) {
  if (const Compiled* cp = as_compiled(fn, CompiledKind::Residual, "F")) {
    Compiled c = *cp;
    return [c](double t, const VecIn& y, const VecIn& yp, VecOut out, const VecIn& p) {
      const int rc = reinterpret_cast<ResidualFn>(c.address)(
          t, y.data(), yp.data(), out.data(), static_cast<int>(y.size()), p.data(),
          static_cast<int>(p.size()), reinterpret_cast<void*>(c.user_data));
      if (rc != 0) compiled_failed(c, rc);
    };
  }
  PyCallable c = make_callable(fn, spec, "F");
  return [c](double t, const VecIn& y, const VecIn& yp, VecOut out, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y, &yp}, &p, [&](const py::object& r) { read_vector(r, out, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

ImplicitDae::Jacobian make_implicit_jacobian(const py::object& fn, const CallbackSpec& spec,
                                             const char* name) {
  if (const Compiled* cp = as_compiled(fn, CompiledKind::Residual, name)) {
    Compiled c = *cp;
    return [c](double t, const VecIn& y, const VecIn& yp, Matrix& J, const VecIn& p) {
      const int rc = reinterpret_cast<ResidualFn>(c.address)(
          t, y.data(), yp.data(), J.data(), static_cast<int>(y.size()), p.data(),
          static_cast<int>(p.size()), reinterpret_cast<void*>(c.user_data));
      if (rc != 0) compiled_failed(c, rc);
    };
  }
  PyCallable c = make_callable(fn, spec, name);
  return [c](double t, const VecIn& y, const VecIn& yp, Matrix& J, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y, &yp}, &p, [&](const py::object& r) { read_matrix(r, J, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

ImplicitDae::SparseJacobian make_sparse_implicit_jacobian(const py::object& fn,
                                                          const CallbackSpec& spec,
                                                          const char* name) {
  PyCallable c = make_callable(fn, spec, name);
  return [c](double t, const VecIn& y, const VecIn& yp, SparseMatrix& J, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y, &yp}, &p, [&](const py::object& r) { read_sparse(r, J, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

Sparsity make_sparsity(int n, const py::object& s) {
  if (s.is_none()) return Sparsity::dense();
  const py::tuple t = s.cast<py::tuple>();
  const std::string kind = t[0].cast<std::string>();
  if (kind == "dense") return Sparsity::dense();
  if (kind == "banded") return Sparsity::banded(t[1].cast<int>(), t[2].cast<int>());
  if (kind == "csc") {
    if (t.size() != 4) throw py::value_error("jac_sparsity: ('csc', indptr, indices, data)");
    return Sparsity::sparse(csc_matrix(n, t[1], t[2], t[3], "jac_sparsity"));
  }
  throw py::value_error("jac_sparsity: unknown kind '" + kind + "'");
}

// ---------------------------------------------------------------------------------------------
// Problems.

struct MassProblem {
  MassMatrixDae dae;
  std::vector<Event> events;     ///< the model's own events (built-in problems)
  std::vector<Switch> switches;  ///< the model's own switching functions (built-in problems)
  std::vector<double> tstops;    ///< the model's own discontinuity times (built-in problems)
};

/// The model's own events, switches and tstops (built-in problems) added to a solve's options
/// on [t0, t1] (add_model_options of the problems layer).
void add_problem_options(const MassProblem& prob, double t0, double t1, Options& o) {
  BuiltinProblem b;
  b.t0 = t0;
  b.t_end = t1;
  b.events = prob.events;
  b.switches = prob.switches;
  b.tstops = prob.tstops;
  add_model_options(b, o);
}

struct ImplicitProblem {
  ImplicitDae dae;
};

/// MassMatrixDae::parameter_jacobian from a Python callable jac_p(t, y, *args, p) returning
/// df/dp, shape (n, len(p)) (solve_ivp's jac_p): the sensitivities use it instead of
/// differences in p. A wrong shape or NaN ends the solve with a callback error, as for jac.
void set_parameter_jacobian(MassProblem& prob, const py::object& fn, const py::tuple& args,
                            bool pass_p) {
  const CallbackSpec spec{args, pass_p};
  PyCallable c = make_callable(fn, spec, "jac_p");
  prob.dae.parameter_jacobian = [c](double t, const VecIn& y, Matrix& J, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      call_python(c, t, {&y}, &p, [&](const py::object& r) { read_matrix(r, J, c.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

/// n, f, jac (callable, Compiled or None), jac_sparsity (None or a tuple), mass (None, a dense
/// array or ("csc", indptr, indices, data)), index tags, p, names, args, pass_p.
std::shared_ptr<MassProblem> make_mass_problem(int n, const py::object& f, const py::object& jac,
                                               const py::object& sparsity, const py::object& mass,
                                               const std::vector<int>& index, const py::object& p,
                                               const std::vector<std::string>& names,
                                               const std::string& name, const py::tuple& args,
                                               bool pass_p) {
  auto prob = std::make_shared<MassProblem>();
  MassMatrixDae& dae = prob->dae;
  const CallbackSpec spec{args, pass_p};
  dae.n = n;
  dae.name = name;
  dae.f = make_rhs(f, spec, "f");
  dae.jacobian_sparsity = make_sparsity(n, sparsity);
  if (!jac.is_none()) {
    // a Python jac with a structure: its values are read into the structure's entries
    // (O(nnz) for a scipy sparse result; a dense array is read once, without a copy), never
    // through an n x n matrix that is zeroed, checked and copied at every Jacobian
    if (!dae.jacobian_sparsity.is_dense() && !py::isinstance<Compiled>(jac))
      dae.sparse_jacobian = make_sparse_jacobian(jac, spec);
    else
      dae.jacobian = make_jacobian(jac, spec);
  }
  if (!mass.is_none()) {
    if (py::isinstance<py::tuple>(mass)) {
      const py::tuple t = mass.cast<py::tuple>();
      if (t.size() != 4) throw py::value_error("mass: ('csc', indptr, indices, data)");
      dae.mass_sparse = csc_matrix(n, t[1], t[2], t[3], "mass");
    } else {
      dae.mass = to_matrix(mass, "mass");
    }
  }
  dae.index = index;
  if (!p.is_none()) dae.p = to_vector(p, "p");
  dae.component_names = names;
  dae.validate();
  return prob;
}

std::shared_ptr<ImplicitProblem> make_implicit_problem(
    int n, const py::object& F, const py::object& jac_y, const py::object& jac_yp,
    const py::object& sparsity, const std::vector<bool>& differential,
    const std::vector<int>& index, const py::object& p, const std::vector<std::string>& names,
    const std::string& name, const py::tuple& args, bool pass_p) {
  auto prob = std::make_shared<ImplicitProblem>();
  ImplicitDae& dae = prob->dae;
  const CallbackSpec spec{args, pass_p};
  dae.n = n;
  dae.name = name;
  dae.F = make_residual(F, spec);
  dae.jacobian_sparsity = make_sparsity(n, sparsity);
  const bool into_structure = !dae.jacobian_sparsity.is_dense() && !jac_y.is_none() &&
                              !jac_yp.is_none() && !py::isinstance<Compiled>(jac_y) &&
                              !py::isinstance<Compiled>(jac_yp);
  if (into_structure) {  // Python callables read into the structure's entries (as for M y' = f)
    dae.sparse_dF_dy = make_sparse_implicit_jacobian(jac_y, spec, "jac_y");
    dae.sparse_dF_dyp = make_sparse_implicit_jacobian(jac_yp, spec, "jac_yp");
  } else {
    if (!jac_y.is_none()) dae.dF_dy = make_implicit_jacobian(jac_y, spec, "jac_y");
    if (!jac_yp.is_none()) dae.dF_dyp = make_implicit_jacobian(jac_yp, spec, "jac_yp");
  }
  dae.differential = differential;
  dae.index = index;
  if (!p.is_none()) dae.p = to_vector(p, "p");
  dae.component_names = names;
  dae.validate();
  return prob;
}

// ---------------------------------------------------------------------------------------------
// Options from a dict (the Python layer checks names and types; C++ validates values).

template <typename T>
std::optional<T> get(const py::dict& d, const char* key) {
  if (!d.contains(key)) return std::nullopt;
  py::object v = d[key];
  if (v.is_none()) return std::nullopt;
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string("option '") + key + "': " + py::repr(v).cast<std::string>() +
                         " has the wrong type");
  }
}

Event make_event(const py::dict& e, const CallbackSpec& spec) {
  Event ev;
  ev.name = get<std::string>(e, "name").value_or("event");
  ev.direction = get<int>(e, "direction").value_or(0);
  ev.max_step = get<double>(e, "max_step").value_or(0.0);
  const py::object fn = e["fun"];
  const bool with_yp = get<bool>(e, "with_yp").value_or(false);
  if (const Compiled* cp = as_compiled(fn, CompiledKind::Event, "event '" + ev.name + "'")) {
    Compiled c = *cp;
    ev.r = [c](double t, const VecIn& y, const VecIn& yp, const VecIn& p) {
      return reinterpret_cast<EventFn>(c.address)(
          t, y.data(), yp.data(), static_cast<int>(y.size()), p.data(), static_cast<int>(p.size()),
          reinterpret_cast<void*>(c.user_data));
    };
  } else {
    PyCallable c = make_callable(fn, spec, "event '" + ev.name + "'");
    ev.r = [c, with_yp](double t, const VecIn& y, const VecIn& yp, const VecIn& p) {
      py::gil_scoped_acquire gil;
      try {
        double value = 0.0;
        auto read = [&](const py::object& r) { value = read_scalar(r, c.name); };
        if (with_yp)
          call_python(c, t, {&y, &yp}, &p, read);
        else
          call_python(c, t, {&y}, &p, read);
        return value;
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  const bool terminal = get<bool>(e, "terminal").value_or(false);
  const bool has_action = e.contains("action") && !e["action"].is_none();
  if (terminal) {
    ev.action = [](double, Vector&, Vector&) { return EventAction::Stop; };
  } else if (has_action) {
    // action(t, y[, p]) -> new y or None; p (a writable copy of the solve's parameters) may be
    // changed in place. The solve re-initialises consistently and restarts the method.
    const bool action_p = get<bool>(e, "action_takes_p").value_or(false);
    auto fn_ref = std::make_shared<PyRef>(e["action"]);
    const std::string what = "action of event '" + ev.name + "'";
    ev.action = [fn_ref, action_p, what](double t, Vector& y, Vector& p) {
      py::gil_scoped_acquire gil;
      try {
        py::array_t<double> ya = vector_array(y), pa = vector_array(p);
        py::object r = action_p ? fn_ref->obj(t, ya, pa) : fn_ref->obj(t, ya);
        if (!r.is_none()) read_vector(r, y, what);
        if (action_p) read_vector(pa, p, what + " (p)");
      } catch (py::error_already_set& e) {
        try {
          rethrow_python(e);
        } catch (const std::exception& x) {  // say that the action failed, not the function
          throw std::runtime_error(what + ": " + x.what());
        }
      }
      return EventAction::Restart;
    };
  }
  return ev;
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C. Compiled callbacks never return to the interpreter, so every solve started from Python
// asks (Options::interrupt, before every step attempt) whether a signal arrived: at most every
// 50 ms of wall time the main thread (the only one Python runs signal handlers on) takes the GIL
// and runs the handlers (PyErr_CheckSignals). An exception from a handler (KeyboardInterrupt for
// Ctrl-C) ends the solve with Status::Interrupted; it is raised when the solve returns, with the
// partial result as its attribute `result`. Between checks the cost is one clock reading.

constexpr std::chrono::milliseconds kSignalInterval{50};

unsigned long& main_thread_id() {
  static unsigned long id = 0;  // threading.main_thread().ident, set at import
  return id;
}

/// The exception a signal handler raised (held until raised again; dropped with the GIL).
struct PendingException {
  PyRefPtr type, value, trace;

  /// Takes the pending Python exception (GIL held).
  void fetch() {
    PyObject *t = nullptr, *v = nullptr, *tb = nullptr;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    type = std::make_shared<PyRef>(py::reinterpret_steal<py::object>(t));
    value = std::make_shared<PyRef>(py::reinterpret_steal<py::object>(v));
    trace = std::make_shared<PyRef>(tb ? py::reinterpret_steal<py::object>(tb) : py::none());
  }
  explicit operator bool() const { return static_cast<bool>(type); }

  /// Raises it (GIL held), with `partial` (unless None) as its attribute `result`.
  [[noreturn]] void raise(const py::object& partial) {
    py::object t = type->obj, v = value->obj, tb = trace->obj;
    type.reset();
    value.reset();
    trace.reset();
    if (!partial.is_none() && PyObject_SetAttrString(v.ptr(), "result", partial.ptr()) != 0)
      PyErr_Clear();  // an exception type without attributes: raised without the result
    PyErr_Restore(t.release().ptr(), v.release().ptr(),
                  tb.is_none() ? nullptr : tb.release().ptr());
    throw py::error_already_set();
  }
};

/// Runs the Python signal handlers if this is the main thread (GIL not held); true (and the
/// handler's exception in `caught`) if one raised.
bool signal_raised(PendingException& caught) {
  if (PyThread_get_thread_ident() != main_thread_id()) return false;
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  caught.fetch();
  return true;
}

/// Options::interrupt of a solve started from Python (copies of the options share the state).
class SignalCheck {
 public:
  struct State {
    std::chrono::steady_clock::time_point next{};
    PendingException caught;
  };

  bool operator()() const {
    const auto now = std::chrono::steady_clock::now();
    if (now < state_->next) return false;
    state_->next = now + kSignalInterval;
    return signal_raised(state_->caught);
  }
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

/// The state of the signal check of options made by make_options.
std::shared_ptr<SignalCheck::State> signal_state(const Options& o) {
  const SignalCheck* c = o.interrupt.target<SignalCheck>();
  return c ? c->state() : nullptr;
}

/// After a solve (GIL held): raises the exception of a signal handler that interrupted it.
void raise_if_interrupted(const std::shared_ptr<SignalCheck::State>& state,
                          const py::object& partial) {
  if (state && state->caught) state->caught.raise(partial);
}

/// A switching function from {fun, name, parameter, max_step} (python/daekit/_ivp.py).
Switch make_switch(const py::dict& d, const CallbackSpec& spec) {
  py::dict e;
  e["fun"] = d["fun"];
  e["name"] = d["name"];
  const Event ev = make_event(e, spec);
  Switch sw;
  sw.name = ev.name;
  sw.parameter = get<int>(d, "parameter").value_or(-1);
  sw.max_step = get<double>(d, "max_step").value_or(0.0);
  sw.s = [r = ev.r](double t, VecIn y, VecIn p) { return r(t, y, y, p); };
  return sw;
}

Options make_options(const py::dict& d, const CallbackSpec& spec) {
  Options o;
  if (auto v = get<double>(d, "rtol")) o.rtol = *v;
  if (d.contains("atol") && !d["atol"].is_none()) {
    py::object a = d["atol"];
    if (py::isinstance<py::float_>(a) || py::isinstance<py::int_>(a))
      o.atol = a.cast<double>();
    else
      o.atol_vector = to_vector(a, "atol");
    if (o.atol_vector.size() == 0 &&
        !(py::isinstance<py::float_>(a) || py::isinstance<py::int_>(a)))
      throw py::value_error("atol: an empty array (give a number or n values)");
    if (o.atol_vector.size() > 0) o.atol = o.atol_vector.minCoeff();
  }
  if (auto v = get<double>(d, "first_step")) o.h0 = *v;
  if (auto v = get<double>(d, "max_step")) o.hmax = *v;
  if (auto v = get<double>(d, "min_step")) o.hmin = *v;
  if (auto v = get<long>(d, "max_steps")) o.max_steps = *v;
  if (auto v = get<bool>(d, "fixed_step")) o.fixed_step = *v;
  if (d.contains("t_eval") && !d["t_eval"].is_none()) {
    const Vector te = to_vector(d["t_eval"], "t_eval");
    o.output_times.assign(te.data(), te.data() + te.size());
  }
  if (auto v = get<bool>(d, "store_steps")) o.store_steps = *v;
  if (auto v = get<bool>(d, "dense_output")) o.store_dense = *v;
  if (auto v = get<std::vector<int>>(d, "nonnegative")) o.nonnegative = *v;
  if (auto v = get<std::vector<int>>(d, "exclude_from_error_test")) o.exclude_from_error_test = *v;
  if (auto v = get<bool>(d, "check_jacobian")) o.check_jacobian = *v;
  if (auto v = get<bool>(d, "detect_sparsity")) o.detect_sparsity = *v;
  if (auto v = get<int>(d, "detect_sparsity_min_n")) o.detect_sparsity_min_n = *v;
  if (auto v = get<bool>(d, "check_consistency")) o.check_consistency = *v;
  if (auto v = get<bool>(d, "global_error_check")) o.global_error_check = *v;
  if (auto v = get<bool>(d, "sensitivities")) o.sensitivities = *v;
  if (auto v = get<bool>(d, "sensitivity_error_control")) o.sensitivity_error_control = *v;
  if (d.contains("initial_sensitivities") && !d["initial_sensitivities"].is_none())
    o.initial_sensitivities = to_matrix(d["initial_sensitivities"], "initial_sensitivities");
  if (auto v = get<double>(d, "consistency_tol")) o.consistency_tol = *v;
  if (auto v = get<double>(d, "safety")) o.safety = *v;
  if (auto v = get<double>(d, "max_increase")) o.max_increase = *v;
  if (auto v = get<double>(d, "max_decrease")) o.max_decrease = *v;
  if (auto v = get<int>(d, "max_events")) o.max_events = *v;
  if (auto v = get<int>(d, "chatter_limit")) o.chatter_limit = *v;
  if (auto v = get<std::string>(d, "linear_solver")) o.linear_solver = parse_linear_solver(*v);
  if (auto v = get<std::string>(d, "controller")) o.controller = parse_controller(*v);
  if (auto v = get<std::string>(d, "projection")) {
    if (*v == "none")
      o.projection = Projection::None;
    else if (*v == "velocity")
      o.projection = Projection::Velocity;
    else if (*v == "full")
      o.projection = Projection::Full;
    else
      throw py::value_error("projection must be 'none', 'velocity' or 'full', got '" + *v + "'");
  }
  if (d.contains("events") && !d["events"].is_none())
    for (const py::handle& e : d["events"])
      o.events.push_back(make_event(e.cast<py::dict>(), spec));
  if (d.contains("tstops") && !d["tstops"].is_none()) {
    const Vector ts = to_vector(d["tstops"], "tstops");
    o.tstops.assign(ts.data(), ts.data() + ts.size());
  }
  if (d.contains("switches") && !d["switches"].is_none())
    for (const py::handle& e : d["switches"])
      o.switches.push_back(make_switch(e.cast<py::dict>(), spec));
  if (d.contains("trace") && !d["trace"].is_none()) {
    auto fn = std::make_shared<PyRef>(d["trace"]);
    o.trace = [fn](const StepTrace& s) {
      py::gil_scoped_acquire gil;
      try {
        py::dict row;
        row["t"] = s.t;
        row["h"] = s.h;
        row["outcome"] = to_string(s.outcome);
        row["order"] = s.order;
        row["newton_iterations"] = s.newton_iterations;
        row["newton_rate"] = s.newton_rate;
        row["error"] = s.error;
        row["detail"] = s.detail ? s.detail : "";
        fn->obj(row);
      } catch (py::error_already_set& e) {
        PyErr_Clear();  // a trace must not change the solve: ignore its failures
      }
    };
  }
  if (d.contains("step_callback") && !d["step_callback"].is_none()) {
    auto fn = std::make_shared<PyRef>(d["step_callback"]);
    o.step_callback = [fn](const StepInfo& s) {
      py::gil_scoped_acquire gil;
      try {
        py::object r = fn->obj(s.t, vector_array(*s.y));
        return r.is_none() || r.cast<bool>();
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  o.interrupt = SignalCheck();  // Ctrl-C (solve_many replaces it by its cancel flag)
  return o;
}

/// The method with its options as text ((name, value) pairs from the Python layer, which
/// checked their names and Python types): converted and validated by the method's registered
/// description (InvalidArgument, a ValueError, naming the option and its valid values).
MethodChoice make_method(const std::string& method, const OptionValues& values) {
  return MethodChoice(method, values);
}

/// An option value reported as text, as the Python value of its type.
py::object option_value(const MethodOptionValue& v) {
  switch (v.type) {
    case OptionType::Bool:
      return py::bool_(v.value == "true");
    case OptionType::Int:
      return py::int_(std::stoll(v.value));
    case OptionType::Double: {
      char* end = nullptr;
      const double x = std::strtod(v.value.c_str(), &end);
      if (end == v.value.c_str() + v.value.size() && !v.value.empty()) return py::float_(x);
      return py::str(v.value);  // the automatic word ("auto")
    }
    default:
      return py::str(v.value);
  }
}

/// Result::method_options as a dict (name -> value), in the order of the description.
py::dict method_options_dict(const Result& r) {
  py::dict d;
  for (const MethodOptionValue& v : r.method_options) d[py::str(v.name)] = option_value(v);
  return d;
}

/// The description of a method's options for daekit.method_info().
py::list method_options_list(const MethodInfo& mi) {
  py::list l;
  for (const MethodOption& o : mi.options) {
    py::dict d;
    d["name"] = o.name;
    d["type"] = to_string(o.type);
    d["default"] = option_value({o.name, o.type, o.default_value});
    d["range"] = o.range();
    d["min"] = o.min;
    d["max"] = o.max;
    d["min_open"] = o.min_open;
    d["max_open"] = o.max_open;
    d["choices"] = o.choices;
    d["automatic"] = o.automatic;
    d["doc"] = o.doc;
    l.append(d);
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// Results.

using ResultPtr = std::shared_ptr<Result>;

py::dict stats_dict(const Stats& s) {
  py::dict d;
  for (const StatsField& f : stats_fields()) d[f.key] = s.*(f.member);
  return d;
}

py::object sol(const Result& r, const py::object& t) {
  if (r.segments.empty()) throw py::value_error("no dense output: solve with dense_output=True");
  if (py::isinstance<py::float_>(t) || py::isinstance<py::int_>(t))
    return vector_array(r.sol(t.cast<double>()));
  const Vector ts = to_vector(t, "t");
  Matrix out(r.y.size(), ts.size());
  for (Eigen::Index k = 0; k < ts.size(); ++k) out.col(k) = r.sol(ts[k]);
  return matrix_array(out);
}

// ---------------------------------------------------------------------------------------------
// Solving.

ResultPtr solve_mass(const MassProblem& prob, double t0, double t1, const py::object& y0,
                     const std::string& method, const OptionValues& method_options,
                     const py::dict& options, const py::tuple& args, bool pass_p) {
  Options o = make_options(options, {args, pass_p});
  add_problem_options(prob, t0, t1, o);
  const Vector y = to_vector(y0, "y0");
  const MethodChoice choice = make_method(method, method_options);
  auto r = std::make_shared<Result>();
  {
    py::gil_scoped_release release;
    *r = solve(prob.dae, t0, t1, y, choice, o);
  }
  raise_if_interrupted(signal_state(o), py::cast(r));
  return r;
}

// ---------------------------------------------------------------------------------------------
// Adjoint gradients (integrator/adjoint.hpp): the functional's callbacks from Python callables
// fn(t, y, *args, p) (None: not given), a value or a gradient of size `size`.

AdjointFunctional::Value adjoint_value(const py::object& fn, const CallbackSpec& spec,
                                       const char* name) {
  if (fn.is_none()) return nullptr;
  PyCallable c = make_callable(fn, spec, name);
  return [c](double t, const VecIn& y, const VecIn& p) {
    py::gil_scoped_acquire gil;
    try {
      double value = 0.0;
      call_python(c, t, {&y}, &p, [&](const py::object& r) { value = read_scalar(r, c.name); });
      return value;
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
}

AdjointFunctional::Gradient adjoint_gradient_callback(const py::object& fn,
                                                      const CallbackSpec& spec, const char* name) {
  if (fn.is_none()) return nullptr;
  return python_rhs(fn, spec, name);
}

/// adjoint_gradient on a MassProblem: the functional as a dict of callables or None (g, g_y,
/// g_p, q, q_y, q_p), the result as a dict.
py::dict adjoint_mass(const MassProblem& prob, double t0, double t1, const py::object& y0,
                      const std::string& method, const OptionValues& method_options,
                      const py::dict& options, const py::tuple& args, bool pass_p,
                      const py::dict& functional, long max_stored_steps, double quadrature_atol) {
  Options o = make_options(options, {args, pass_p});
  const Vector y = to_vector(y0, "y0");
  const MethodChoice choice = make_method(method, method_options);
  const CallbackSpec spec{args, true};
  auto get = [&](const char* key) {
    return functional.contains(key) ? py::object(functional[key]) : py::object(py::none());
  };
  AdjointFunctional F;
  F.g = adjoint_value(get("g"), spec, "g");
  F.g_y = adjoint_gradient_callback(get("g_y"), spec, "g_y");
  F.g_p = adjoint_gradient_callback(get("g_p"), spec, "g_p");
  F.q = adjoint_value(get("q"), spec, "q");
  F.q_y = adjoint_gradient_callback(get("q_y"), spec, "q_y");
  F.q_p = adjoint_gradient_callback(get("q_p"), spec, "q_p");
  AdjointOptions ao;
  ao.max_stored_steps = max_stored_steps;
  ao.quadrature_atol = quadrature_atol;
  AdjointResult r;
  {
    py::gil_scoped_release release;
    r = adjoint_gradient(prob.dae, t0, t1, y, F, choice, o, ao);
  }
  raise_if_interrupted(signal_state(o), py::none());
  py::dict d;
  d["status"] = to_string(r.status);
  d["message"] = r.message;
  d["value"] = r.value;
  d["gradient"] = vector_array(r.gradient);
  d["lambda0"] = vector_array(r.lambda0);
  d["forward_steps"] = r.forward_steps;
  d["recomputed_steps"] = r.recomputed_steps;
  d["backward_steps"] = r.backward_steps;
  d["forward_runs"] = r.forward_runs;
  d["backward_runs"] = r.backward_runs;
  d["peak_stored_states"] = r.peak_stored_states;
  d["peak_checkpoints"] = r.peak_checkpoints;
  d["nfev"] = r.forward_stats.nfev + r.backward_stats.nfev;
  d["njev"] = r.forward_stats.njac + r.backward_stats.njac;
  d["cpu_seconds"] = r.cpu_seconds;
  return d;
}

/// The augmented curve SingDAE followed and the point it located, as a dict (None: no impasse
/// point stopped the solve).
py::object passage_dict(const ImpasseSolve& s) {
  if (!s.impasse) return py::none();
  const ImpassePassage& p = s.passage;
  py::dict d;
  d["passed"] = p.passed;
  d["message"] = p.message;
  d["t"] = p.passed ? py::object(py::float_(p.point.t)) : py::object(py::none());
  d["x"] = p.passed ? py::object(vector_array(p.point.x)) : py::object(py::none());
  d["alpha"] = p.passed ? py::object(py::float_(p.point.alpha)) : py::object(py::none());
  d["accessible"] = p.passed ? py::object(py::bool_(p.point.accessible)) : py::object(py::none());
  d["s"] = py::array_t<double>(static_cast<py::ssize_t>(p.s.size()), p.s.data());
  d["t_curve"] = py::array_t<double>(static_cast<py::ssize_t>(p.t.size()), p.t.data());
  d["gamma"] = py::array_t<double>(static_cast<py::ssize_t>(p.gamma.size()), p.gamma.data());
  Matrix x(p.x.empty() ? 0 : p.x.front().size(), static_cast<Eigen::Index>(p.x.size()));
  for (size_t i = 0; i < p.x.size(); ++i) x.col(static_cast<Eigen::Index>(i)) = p.x[i];
  d["x_curve"] = matrix_array(x);
  return d;
}

/// solve_with_impasses (notes ch. 7) for solve_ivp(..., impasse=...): (Result, passage or None).
py::tuple solve_mass_with_impasses(const MassProblem& prob, double t0, double t1,
                                   const py::object& y0, const std::string& method,
                                   const OptionValues& method_options, const py::dict& options,
                                   const py::tuple& args, bool pass_p, double ds, double arc_length,
                                   double gamma_tol) {
  Options o = make_options(options, {args, pass_p});
  add_problem_options(prob, t0, t1, o);
  const Vector y = to_vector(y0, "y0");
  const MethodChoice choice = make_method(method, method_options);
  SingDaeOptions sing;
  sing.ds = ds;
  sing.arc_length = arc_length;
  sing.gamma_tol = gamma_tol;
  sing.validate();
  auto r = std::make_shared<Result>();
  ImpasseSolve s;
  {
    py::gil_scoped_release release;
    s = solve_with_impasses(prob.dae, t0, t1, y, choice, o, sing);
    *r = std::move(s.result);
  }
  raise_if_interrupted(signal_state(o), py::cast(r));
  return py::make_tuple(r, passage_dict(s));
}

ResultPtr solve_implicit(const ImplicitProblem& prob, double t0, double t1, const py::object& y0,
                         const py::object& yp0, const std::string& method,
                         const OptionValues& method_options, const py::dict& options,
                         const py::tuple& args, bool pass_p) {
  Options o = make_options(options, {args, pass_p});
  const Vector y = to_vector(y0, "y0"), yp = to_vector(yp0, "yp0");
  const MethodChoice choice = make_method(method, method_options);
  auto r = std::make_shared<Result>();
  {
    py::gil_scoped_release release;
    *r = solve(prob.dae, t0, t1, y, yp, choice, o);
  }
  raise_if_interrupted(signal_state(o), py::cast(r));
  return r;
}

/// The stepping object: Integrator with the GIL released in every step.
class PyIntegrator {
 public:
  PyIntegrator(const MassProblem& prob, double t0, double t1, const py::object& y0,
               const std::string& method, const OptionValues& method_options,
               const py::dict& options, const py::tuple& args, bool pass_p) {
    Options o = make_options(options, {args, pass_p});
    add_problem_options(prob, t0, t1, o);
    const Vector y = to_vector(y0, "y0");
    const MethodChoice choice = make_method(method, method_options);
    signals_ = signal_state(o);
    py::gil_scoped_release release;
    it_ = std::make_unique<Integrator>(prob.dae, t0, t1, y, choice, o);
  }
  PyIntegrator(const ImplicitProblem& prob, double t0, double t1, const py::object& y0,
               const py::object& yp0, const std::string& method, const OptionValues& method_options,
               const py::dict& options, const py::tuple& args, bool pass_p) {
    Options o = make_options(options, {args, pass_p});
    const Vector y = to_vector(y0, "y0"), yp = to_vector(yp0, "yp0");
    const MethodChoice choice = make_method(method, method_options);
    signals_ = signal_state(o);
    py::gil_scoped_release release;
    it_ = std::make_unique<Integrator>(prob.dae, t0, t1, y, yp, choice, o);
  }
  ~PyIntegrator() {
    py::gil_scoped_release release;  // the problem's callbacks drop their references with it
    it_.reset();
  }

  std::string step() {
    check();
    Integrator::Stop s;
    {
      py::gil_scoped_release release;
      s = it_->step();
    }
    raise_if_interrupted(signals_, py::none());  // the partial result stays in the integrator
    return name(s);
  }
  std::string solve_until(double t, bool stop_exactly) {
    check();
    Integrator::Stop s;
    {
      py::gil_scoped_release release;
      s = it_->solve_until(t, stop_exactly);
    }
    raise_if_interrupted(signals_, py::none());
    return name(s);
  }
  bool model_changed() {
    check();
    py::gil_scoped_release release;
    return it_->model_changed();
  }
  bool set_parameters(const py::object& p) {
    check();
    const Vector v = to_vector(p, "p");
    py::gil_scoped_release release;
    return it_->set_parameters(v);
  }
  bool reinit(const py::object& y) {
    check();
    const Vector v = to_vector(y, "y");
    py::gil_scoped_release release;
    return it_->reinit(v);
  }
  py::array_t<double> parameters() const {
    check();
    return vector_array(it_->parameters());
  }
  double t() const {
    check();
    return it_->t();
  }
  py::array_t<double> y() const {
    check();
    return vector_array(it_->y());
  }
  py::array_t<double> y_at(double t) const {
    check();
    return vector_array(it_->y_at(t));
  }
  bool finished() const { return !it_ || it_->finished(); }
  ResultPtr result() const {
    check();
    return std::make_shared<Result>(it_->result());
  }
  ResultPtr take_result() {
    check();
    auto r = std::make_shared<Result>(it_->take_result());
    taken_ = true;
    return r;
  }

 private:
  void check() const {
    if (!it_ || taken_) throw py::value_error("the integrator's result was already taken");
  }
  static std::string name(Integrator::Stop s) {
    switch (s) {
      case Integrator::Stop::InternalStep:
        return "step";
      case Integrator::Stop::OutputTime:
        return "output_time";
      case Integrator::Stop::Event:
        return "event";
      case Integrator::Stop::End:
        return "end";
      case Integrator::Stop::Failure:
        return "failure";
    }
    return "?";
  }
  std::unique_ptr<Integrator> it_;
  bool taken_ = false;
  std::shared_ptr<SignalCheck::State> signals_;  // Ctrl-C during step() / solve_until()
};

// ---------------------------------------------------------------------------------------------
// Ensembles: many solves of one problem with different parameters (and initial values) on a
// pool of threads, the GIL released.

struct BuiltinHolder {
  BuiltinProblem problem;
};

/// One run of an ensemble: the problem with the run's parameters (and initial values).
Result solve_run(const std::shared_ptr<MassProblem>& prob,
                 const std::shared_ptr<BuiltinHolder>& builtin, double t0, double t1,
                 const Matrix& Y0, const Vector& p, long i, const MethodChoice& choice,
                 const Options& o) {
  Options oi = o;
  if (builtin) {
    BuiltinProblem b = with_parameters(builtin->problem, p);
    b.t0 = t0;
    b.t_end = t1;
    add_model_options(b, oi);
    const Vector y0 = Y0.size() ? Vector(Y0.row(Y0.rows() == 1 ? 0 : i).transpose()) : b.y0;
    return solve(b.dae, t0, t1, y0, choice, oi);
  }
  MassMatrixDae dae = prob->dae;
  dae.p = p;
  add_problem_options(*prob, t0, t1, oi);
  return solve(dae, t0, t1, Y0.row(Y0.rows() == 1 ? 0 : i).transpose(), choice, oi);
}

/// The runs of an ensemble on `threads` worker threads (the GIL released) while the calling
/// thread waits for them, running the signal handlers every 50 ms: an exception from one
/// (KeyboardInterrupt) sets the cancel flag that every running solve (Options::interrupt) and
/// every queued run checks, and is raised once the workers stopped, with the results so far
/// (None for runs not started) as its attribute `result`.
std::vector<ResultPtr> solve_many(const std::shared_ptr<MassProblem>& prob,
                                  const std::shared_ptr<BuiltinHolder>& builtin, double t0,
                                  double t1, const py::object& y0s, const py::object& params,
                                  const std::string& method, const OptionValues& method_options,
                                  const py::dict& options, const py::tuple& args, bool pass_p,
                                  int threads) {
  if (!prob && !builtin) throw py::value_error("solve_many: no problem");
  Options o = make_options(options, {args, pass_p});
  const MethodChoice choice = make_method(method, method_options);
  const Matrix P = to_matrix(params, "params");  // N x np
  const long count = P.rows();
  Matrix Y0;
  if (!y0s.is_none()) {
    Y0 = to_matrix(y0s, "y0");
    if (Y0.rows() != 1 && Y0.rows() != count)
      throw py::value_error("y0 must have one row or one row per parameter set");
  } else if (!builtin) {
    throw py::value_error("y0 is needed");
  }
  if (threads < 1) throw py::value_error("threads must be >= 1");
  std::atomic<bool> cancel{false};
  o.interrupt = [&cancel] { return cancel.load(std::memory_order_relaxed); };
  std::vector<ResultPtr> results(static_cast<size_t>(count));
  std::vector<std::string> errors(static_cast<size_t>(count));
  PendingException caught;
  {
    py::gil_scoped_release release;
    std::atomic<long> next{0};
    std::mutex mutex;
    std::condition_variable finished;
    int running = 0;
    auto work = [&]() {
      for (long i; !cancel.load() && (i = next.fetch_add(1)) < count;) {
        try {
          results[static_cast<size_t>(i)] = std::make_shared<Result>(
              solve_run(prob, builtin, t0, t1, Y0, P.row(i).transpose(), i, choice, o));
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(i)] = e.what();
        } catch (...) {
          errors[static_cast<size_t>(i)] = "an exception not derived from std::exception";
        }
      }
      std::lock_guard<std::mutex> lock(mutex);
      --running;
      finished.notify_all();
    };
    std::vector<std::thread> pool;
    const long workers = std::min<long>(threads, count);
    for (long k = 0; k < workers; ++k) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++running;
      }
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {  // no more threads: the ones started do the work
        std::lock_guard<std::mutex> lock(mutex);
        --running;
        break;
      }
    }
    if (pool.empty() && count > 0) {  // no thread at all: the runs here (Ctrl-C waits for them)
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++running;
      }
      work();
    }
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (finished.wait_for(lock, kSignalInterval, [&] { return running == 0; })) break;
      }
      if (!cancel.load() && signal_raised(caught)) cancel.store(true);
    }
    for (std::thread& th : pool) th.join();
  }
  if (caught) {
    py::list partial;
    for (const ResultPtr& r : results) partial.append(r ? py::cast(r) : py::none());
    caught.raise(partial);
  }
  for (long i = 0; i < count; ++i)
    if (!errors[static_cast<size_t>(i)].empty())
      throw py::value_error("run " + std::to_string(i) + ": " + errors[static_cast<size_t>(i)]);
  return results;
}

// ---------------------------------------------------------------------------------------------
// Mechanical systems.

struct MechanicalHolder {
  MechanicalSystem sys;
};

std::shared_ptr<MechanicalHolder> make_mechanical(int nq, int nlambda, const py::object& mass,
                                                  const py::object& force, const py::object& g,
                                                  const py::object& G, const py::object& curvature,
                                                  const py::object& p, const std::string& name,
                                                  const py::tuple& args, bool pass_p) {
  auto h = std::make_shared<MechanicalHolder>();
  MechanicalSystem& s = h->sys;
  const CallbackSpec spec{args, pass_p};
  s.nq = nq;
  s.nlambda = nlambda;
  s.name = name;
  if (!p.is_none()) s.p = to_vector(p, "p");
  if (py::isinstance<py::array>(mass) || py::isinstance<py::list>(mass)) {
    const Matrix M = to_matrix(mass, "mass");
    if (M.rows() != nq || M.cols() != nq)
      throw py::value_error("mass must be (nq, nq) = (" + std::to_string(nq) + ", " +
                            std::to_string(nq) + "), got (" + std::to_string(M.rows()) + ", " +
                            std::to_string(M.cols()) + ")");
    s.constant_mass = true;
    s.mass = [M](double, const VecIn&, MatOut out) { out = M; };
  } else {
    PyCallable c = make_callable(mass, spec, "mass");
    s.mass = [c](double t, const VecIn& q, MatOut M, const VecIn& pp) {
      py::gil_scoped_acquire gil;
      try {
        call_python(c, t, {&q}, &pp, [&](const py::object& r) { read_matrix(r, M, c.name); });
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  PyCallable cf = make_callable(force, spec, "force");
  s.force = [cf](double t, const VecIn& q, const VecIn& v, VecOut f, const VecIn& pp) {
    py::gil_scoped_acquire gil;
    try {
      call_python(cf, t, {&q, &v}, &pp, [&](const py::object& r) { read_vector(r, f, cf.name); });
    } catch (py::error_already_set& e) {
      rethrow_python(e);
    }
  };
  if (!g.is_none()) {
    PyCallable c = make_callable(g, spec, "g");
    s.g = [c](double t, const VecIn& q, VecOut out, const VecIn& pp) {
      py::gil_scoped_acquire gil;
      try {
        call_python(c, t, {&q}, &pp, [&](const py::object& r) { read_vector(r, out, c.name); });
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  if (!G.is_none()) {
    PyCallable c = make_callable(G, spec, "G");
    s.G = [c](double t, const VecIn& q, MatOut out, const VecIn& pp) {
      py::gil_scoped_acquire gil;
      try {
        call_python(c, t, {&q}, &pp, [&](const py::object& r) { read_matrix(r, out, c.name); });
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  if (!curvature.is_none()) {
    PyCallable c = make_callable(curvature, spec, "curvature");
    s.curvature = [c](double t, const VecIn& q, const VecIn& v, VecOut out, const VecIn& pp) {
      py::gil_scoped_acquire gil;
      try {
        call_python(c, t, {&q, &v}, &pp, [&](const py::object& r) { read_vector(r, out, c.name); });
      } catch (py::error_already_set& e) {
        rethrow_python(e);
      }
    };
  }
  s.validate();
  return h;
}

py::dict layout_dict(const MechanicalLayout& L) {
  py::dict d;
  d["n"] = L.n;
  d["nq"] = L.nq;
  d["m"] = L.m;
  d["q"] = L.q;
  d["v"] = L.v;
  d["w"] = L.w;
  d["lambda"] = L.lambda;
  d["mu"] = L.mu;
  return d;
}

py::dict init_dict(const InitResult& r) {
  py::dict d;
  d["ok"] = r.ok;
  d["message"] = r.message;
  d["y"] = vector_array(r.y);
  d["yp"] = vector_array(r.yp);
  d["residual"] = vector_array(r.residual);
  d["iterations"] = r.iterations;
  d["report"] = r.report();
  return d;
}

std::pair<std::string, std::uintptr_t> capsule_pointer(const py::object& capsule) {
  if (!PyCapsule_CheckExact(capsule.ptr())) throw py::type_error("not a PyCapsule");
  const char* name = PyCapsule_GetName(capsule.ptr());
  void* p = PyCapsule_GetPointer(capsule.ptr(), name);
  if (!p) throw py::error_already_set();
  return {name ? name : "", reinterpret_cast<std::uintptr_t>(p)};
}

}  // namespace
}  // namespace daekit::python

PYBIND11_MODULE(_daekit, m) {
  using namespace daekit;
  using namespace daekit::python;
  m.doc() = "daekit's compiled core (use the package daekit)";
  main_thread_id() =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  py::object recoverable = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "daekit.RecoverableError",
      "Raise from a callback when it cannot be evaluated at this point but a smaller step "
      "may help: the step is rejected and retried smaller.",
      PyExc_RuntimeError, nullptr));
  m.attr("RecoverableError") = recoverable;
  recoverable_error_type() = recoverable;

  py::class_<Compiled>(m, "Compiled")
      .def(py::init([](int kind, std::uintptr_t address, std::uintptr_t user_data,
                       std::string name) {
             if (kind < 0 || kind > 2) throw py::value_error("unknown compiled kind");
             if (address == 0) throw py::value_error("null function address");
             return Compiled{static_cast<CompiledKind>(kind), address, user_data, std::move(name)};
           }),
           py::arg("kind"), py::arg("address"), py::arg("user_data") = 0, py::arg("name") = "")
      .def_readonly("address", &Compiled::address)
      .def_readonly("user_data", &Compiled::user_data)
      .def_readonly("name", &Compiled::name)
      .def_property_readonly("kind", [](const Compiled& c) { return static_cast<int>(c.kind); });
  m.def("_capsule_pointer", &capsule_pointer);

  py::class_<MassProblem, std::shared_ptr<MassProblem>>(m, "MassProblem")
      .def_property_readonly("n", [](const MassProblem& p) { return p.dae.n; })
      .def_property_readonly("name", [](const MassProblem& p) { return p.dae.name; })
      .def_property_readonly("p", [](const MassProblem& p) { return vector_array(p.dae.p); })
      .def_property_readonly("index", [](const MassProblem& p) { return p.dae.index; })
      .def_property_readonly("mass",
                             [](const MassProblem& p) { return matrix_array(p.dae.dense_mass()); })
      .def_property_readonly("component_names",
                             [](const MassProblem& p) {
                               std::vector<std::string> names;
                               for (int i = 0; i < p.dae.n; ++i)
                                 names.push_back(component_name(p.dae, i));
                               return names;
                             })
      .def_property_readonly("has_projector",
                             [](const MassProblem& p) { return static_cast<bool>(p.dae.project); })
      .def("f",
           [](const MassProblem& p, double t, const py::object& y) {
             const Vector yy = to_vector(y, "y");
             Vector out = Vector::Zero(p.dae.n);
             p.dae.f(t, yy, out, p.dae.p);
             return vector_array(out);
           })
      .def("with_p", [](const MassProblem& p, const py::object& params) {
        auto q = std::make_shared<MassProblem>(p);
        q->dae.p = to_vector(params, "p");
        return q;
      });
  py::class_<ImplicitProblem, std::shared_ptr<ImplicitProblem>>(m, "ImplicitProblem")
      .def_property_readonly("n", [](const ImplicitProblem& p) { return p.dae.n; });
  m.def("_make_mass_problem", &make_mass_problem);
  m.def("_set_parameter_jacobian", &set_parameter_jacobian);
  m.def("_make_implicit_problem", &make_implicit_problem);

  py::class_<Result, std::shared_ptr<Result>>(m, "Result")
      .def_property_readonly("status", [](const Result& r) { return to_string(r.status); })
      .def_property_readonly("ok", &Result::ok)
      .def_readonly("message", &Result::message)
      .def_readonly("method", &Result::method)
      .def_readwrite("method_choice", &Result::method_choice)  // set by method="auto"
      .def_readonly("problem", &Result::problem)
      .def_readonly("t", &Result::t)
      .def_property_readonly("y", [](const Result& r) { return vector_array(r.y); })
      .def_property_readonly("yp", [](const Result& r) { return vector_array(r.yp); })
      .def_property_readonly(
          "t_steps", [](const Result& r) { return to_array(r.t_steps.data(), r.t_steps.size()); })
      .def_property_readonly("y_steps",
                             [](const Result& r) {
                               return r.y_steps.empty() ? matrix_array(Matrix(r.y.size(), 0))
                                                        : matrix_array(r.y_steps.matrix());
                             })
      .def_property_readonly(
          "t_out", [](const Result& r) { return to_array(r.t_out.data(), r.t_out.size()); })
      .def_property_readonly("y_out",
                             [](const Result& r) {
                               return r.y_out.empty() ? matrix_array(Matrix(r.y.size(), 0))
                                                      : matrix_array(r.y_out.matrix());
                             })
      .def_readonly("n_parameters", &Result::n_parameters)
      .def_property_readonly("sensitivities",
                             [](const Result& r) { return matrix_array(r.sensitivities); })
      .def_property_readonly(
          "s_steps",
          [](const Result& r) { return sensitivity_array(r.s_steps, r.y.size(), r.n_parameters); })
      .def_property_readonly(
          "s_out",
          [](const Result& r) { return sensitivity_array(r.s_out, r.y.size(), r.n_parameters); })
      .def_readonly("sensitivity_iterations", &Result::sensitivity_iterations)
      .def_property_readonly("events",
                             [](const Result& r) {
                               py::list l;
                               for (const EventRecord& e : r.events) {
                                 py::dict d;
                                 d["t"] = e.t;
                                 d["index"] = e.index;
                                 d["name"] = e.name;
                                 d["residual"] = e.residual;
                                 d["y"] = vector_array(e.y);
                                 if (e.dt_dp.size() > 0) d["dt_dp"] = vector_array(e.dt_dp);
                                 l.append(d);
                               }
                               return l;
                             })
      .def_property_readonly("stats", [](const Result& r) { return stats_dict(r.stats); })
      .def_readonly("cpu_seconds", &Result::cpu_seconds)
      .def_readonly("h_last", &Result::h_last)
      .def_readonly("h_next", &Result::h_next)
      .def_readonly("order", &Result::order)
      .def_readonly("rtol", &Result::rtol)
      .def_readonly("atol", &Result::atol)
      .def_readonly("rtol_used", &Result::rtol_used)
      .def_readonly("atol_used", &Result::atol_used)
      .def_readonly("linear_solver", &Result::linear_solver)
      .def_readonly("jacobian_structure", &Result::jacobian_structure)
      .def_property_readonly("projection", [](const Result& r) { return to_string(r.projection); })
      .def_readonly("fixed_step", &Result::fixed_step)
      .def_property_readonly("controller", [](const Result& r) { return to_string(r.controller); })
      .def_readonly("jacobian_colours", &Result::jacobian_colours)
      .def_readonly("excluded_from_error_test", &Result::excluded_from_error_test)
      .def_property_readonly("method_options", &method_options_dict)
      .def_readonly("global_error", &Result::global_error)
      .def_readonly("global_error_component", &Result::global_error_component)
      .def_readonly("warnings", &Result::warnings)
      .def_readonly("notes", &Result::notes)
      .def_readonly("has_constraints", &Result::has_constraints)
      .def_property_readonly("max_residual",
                             [](const Result& r) -> py::object {
                               if (!r.has_constraints) return py::none();
                               py::dict d;
                               d["position"] = r.max_residual.position;
                               d["velocity"] = r.max_residual.velocity;
                               d["acceleration"] = r.max_residual.acceleration;
                               return d;
                             })
      .def_property_readonly("has_dense_output",
                             [](const Result& r) { return !r.segments.empty(); })
      .def("sol", &sol, py::arg("t"))
      .def("report", &Result::report, py::arg("extra") = "")
      .def("brief_report", &Result::brief_report)
      .def("full_report", &Result::full_report);

  m.def("_solve_mass", &solve_mass);
  m.def("_solve_implicit", &solve_implicit);
  m.def("_adjoint_mass", &adjoint_mass);
  m.def("_solve_mass_with_impasses", &solve_mass_with_impasses);
  m.def("_solve_many", &solve_many);

  py::class_<PyIntegrator>(m, "Integrator")
      .def(py::init<const MassProblem&, double, double, const py::object&, const std::string&,
                    const OptionValues&, const py::dict&, const py::tuple&, bool>())
      .def(py::init<const ImplicitProblem&, double, double, const py::object&, const py::object&,
                    const std::string&, const OptionValues&, const py::dict&, const py::tuple&,
                    bool>())
      .def("step", &PyIntegrator::step)
      .def("solve_until", &PyIntegrator::solve_until, py::arg("t"), py::arg("stop_exactly") = false)
      .def("model_changed", &PyIntegrator::model_changed)
      .def("set_parameters", &PyIntegrator::set_parameters)
      .def("reinit", &PyIntegrator::reinit)
      .def_property_readonly("parameters", &PyIntegrator::parameters)
      .def_property_readonly("t", &PyIntegrator::t)
      .def_property_readonly("y", &PyIntegrator::y)
      .def("y_at", &PyIntegrator::y_at)
      .def_property_readonly("finished", &PyIntegrator::finished)
      .def("result", &PyIntegrator::result)
      .def("take_result", &PyIntegrator::take_result);

  // Methods.
  m.def("_method_option_values", &method_option_values);
  m.def(
      "_auto_method",
      [](int n, int max_index, double rtol, bool implicit_form) {
        const AutoMethod a = auto_method(n, max_index, rtol, implicit_form);
        return py::make_tuple(a.method, a.rule);
      },
      py::arg("n"), py::arg("max_index"), py::arg("rtol"), py::arg("implicit_form") = false);
  m.def("_methods", [] {
    py::list l;
    for (const MethodInfo& mi : registered_methods()) {
      const MethodCapabilities& c = mi.capabilities;
      py::dict caps;
      caps["mass_matrix_form"] = c.mass_matrix_form;
      caps["implicit_form"] = c.implicit_form;
      caps["max_index"] = c.max_index;
      caps["error_estimate"] = c.error_estimate;
      caps["variable_step"] = c.variable_step;
      caps["variable_order"] = c.variable_order;
      caps["order"] = c.order;
      caps["dense_output_order"] = c.dense_output_order;
      caps["own_step_control"] = c.own_step_control;
      caps["index2_form"] = c.index2_form;
      caps["projection"] = c.projection;
      caps["explicit_method"] = c.explicit_method;
      py::dict d;
      d["name"] = mi.name;
      d["title"] = mi.title;
      d["reference"] = mi.reference;
      d["summary"] = mi.summary();
      d["capabilities"] = caps;
      d["options"] = method_options_list(mi);
      l.append(d);
    }
    return l;
  });

  // Built-in problems.
  m.def("_builtin_names", &builtin_problem_names);
  py::class_<BuiltinHolder, std::shared_ptr<BuiltinHolder>>(m, "BuiltinProblem")
      .def_property_readonly("name", [](const BuiltinHolder& b) { return b.problem.name; })
      .def_property_readonly("title", [](const BuiltinHolder& b) { return b.problem.title; })
      .def_property_readonly("description",
                             [](const BuiltinHolder& b) { return b.problem.description; })
      .def_property_readonly("source", [](const BuiltinHolder& b) { return b.problem.source; })
      .def_property_readonly("n", [](const BuiltinHolder& b) { return b.problem.dae.n; })
      .def_property_readonly("t0", [](const BuiltinHolder& b) { return b.problem.t0; })
      .def_property_readonly("t_end", [](const BuiltinHolder& b) { return b.problem.t_end; })
      .def_property_readonly("y0",
                             [](const BuiltinHolder& b) { return vector_array(b.problem.y0); })
      .def_property_readonly("h0", [](const BuiltinHolder& b) { return b.problem.h0; })
      .def_property_readonly("rtol", [](const BuiltinHolder& b) { return b.problem.rtol; })
      .def_property_readonly("atol", [](const BuiltinHolder& b) { return b.problem.atol; })
      .def_property_readonly("atol_scale",
                             [](const BuiltinHolder& b) -> py::object {
                               if (b.problem.atol_scale.size() == 0) return py::none();
                               return vector_array(b.problem.atol_scale);
                             })
      .def_property_readonly("nonnegative",
                             [](const BuiltinHolder& b) { return b.problem.nonnegative; })
      .def_property_readonly("stiff", [](const BuiltinHolder& b) { return b.problem.stiff; })
      .def_property_readonly("p",
                             [](const BuiltinHolder& b) { return vector_array(b.problem.dae.p); })
      .def_property_readonly("parameter_names",
                             [](const BuiltinHolder& b) { return b.problem.parameter_names; })
      .def_property_readonly("reference",
                             [](const BuiltinHolder& b) -> py::object {
                               if (!b.problem.reference) return py::none();
                               py::dict d;
                               d["t"] = b.problem.reference->t;
                               d["y"] = vector_array(b.problem.reference->y);
                               d["source"] = b.problem.reference->source;
                               return d;
                             })
      .def_property_readonly("scd_components",
                             [](const BuiltinHolder& b) { return b.problem.scd_components; })
      .def_property_readonly("plot_components",
                             [](const BuiltinHolder& b) { return b.problem.plot_components; })
      .def_property_readonly(
          "is_mechanical", [](const BuiltinHolder& b) { return b.problem.mechanical.has_value(); })
      .def_property_readonly("event_names",
                             [](const BuiltinHolder& b) {
                               std::vector<std::string> names;
                               for (const Event& e : b.problem.events) names.push_back(e.name);
                               return names;
                             })
      .def_property_readonly("problem",
                             [](const BuiltinHolder& b) {
                               auto p = std::make_shared<MassProblem>();
                               p->dae = b.problem.dae;
                               p->events = b.problem.events;
                               p->switches = b.problem.switches;
                               p->tstops = b.problem.tstops;
                               return p;
                             })
      .def("with_parameters",
           [](const BuiltinHolder& b, const py::object& params) {
             auto h = std::make_shared<BuiltinHolder>();
             h->problem = with_parameters(b.problem, to_vector(params, "params"));
             return h;
           })
      .def_property_readonly("mechanical",
                             [](const BuiltinHolder& b) -> py::object {
                               if (!b.problem.mechanical) return py::none();
                               auto h = std::make_shared<MechanicalHolder>();
                               h->sys = *b.problem.mechanical;
                               return py::cast(h);
                             })
      .def(
          "report",
          [](const BuiltinHolder& b, const Result& r, bool full) {
            return problem_report(b.problem, r, full);
          },
          py::arg("result"), py::arg("full") = false)
      .def("scd", [](const BuiltinHolder& b, const Result& r) { return problem_scd(b.problem, r); })
      .def("component_digits",
           [](const BuiltinHolder& b, const Result& r) -> py::object {
             const std::vector<double> d = problem_component_digits(b.problem, r);
             if (d.empty()) return py::none();
             return py::cast(d);
           })
      .def("recommended_projection", [](const BuiltinHolder& b, const std::string& method) {
        return std::string(to_string(recommended_projection(b.problem, method_info(method))));
      });
  m.def("_builtin", [](const std::string& name) {
    auto h = std::make_shared<BuiltinHolder>();
    h->problem = make_builtin_problem(name);
    return h;
  });
  m.def("_scd", [](const py::object& y, const py::object& ref, const std::vector<int>& comps) {
    return scd(to_vector(y, "y"), to_vector(ref, "reference"), comps);
  });

  // Mechanical systems.
  py::class_<MechanicalHolder, std::shared_ptr<MechanicalHolder>>(m, "MechanicalSystem")
      .def_property_readonly("nq", [](const MechanicalHolder& h) { return h.sys.nq; })
      .def_property_readonly("nlambda", [](const MechanicalHolder& h) { return h.sys.nlambda; })
      .def("layout",
           [](const MechanicalHolder& h, const std::string& form) {
             return layout_dict(mechanical_layout(h.sys, parse_formulation(form)));
           })
      .def("formulate",
           [](const MechanicalHolder& h, const std::string& form) {
             auto p = std::make_shared<MassProblem>();
             p->dae = formulate(h.sys, parse_formulation(form));
             return p;
           })
      .def(
          "initial_values",
          [](const MechanicalHolder& h, const std::string& form, double t0, const py::object& q0,
             const py::object& v0, bool project_velocities) {
            const Vector q = to_vector(q0, "q0"), v = to_vector(v0, "v0");
            Vector y;
            {
              py::gil_scoped_release release;
              y = initial_values(h.sys, parse_formulation(form), t0, q, v, project_velocities);
            }
            return vector_array(y);
          },
          py::arg("form"), py::arg("t0"), py::arg("q0"), py::arg("v0"),
          py::arg("project_velocities") = false)
      .def("constraint_residuals", [](const MechanicalHolder& h, double t, const py::object& q,
                                      const py::object& v, const py::object& vdot) {
        const ConstraintResiduals r = constraint_residuals(
            h.sys, t, to_vector(q, "q"), to_vector(v, "v"), to_vector(vdot, "vdot"));
        py::dict d;
        d["position"] = r.position;
        d["velocity"] = r.velocity;
        d["acceleration"] = r.acceleration;
        return d;
      });
  m.def("_make_mechanical", &make_mechanical);

  // Consistent initial values.
  m.def("_initialize_mass",
        [](const MassProblem& p, double t0, const py::object& y0, double tol, int max_it) {
          InitOptions o;
          o.tol = tol;
          o.max_iterations = max_it;
          const Vector y = to_vector(y0, "y0");
          InitResult r;
          {
            py::gil_scoped_release release;
            r = initialize(p.dae, t0, y, o);
          }
          return init_dict(r);
        });
  m.def("_initialize_implicit", [](const ImplicitProblem& p, double t0, const py::object& y0,
                                   const py::object& yp0, const std::string& mode, double tol,
                                   int max_it) {
    InitOptions o;
    o.tol = tol;
    o.max_iterations = max_it;
    InitMode im;
    if (mode == "differential")
      im = InitMode::DifferentialGiven;
    else if (mode == "derivative")
      im = InitMode::DerivativeGiven;
    else if (mode == "check")
      im = InitMode::CheckOnly;
    else
      throw py::value_error("initialize mode must be 'differential', 'derivative' or 'check'");
    const Vector y = to_vector(y0, "y0"), yp = to_vector(yp0, "yp0");
    InitResult r;
    {
      py::gil_scoped_release release;
      r = initialize(p.dae, t0, y, yp, im, o);
    }
    return init_dict(r);
  });
  m.def("_initial_derivative", [](const MassProblem& p, double t0, const py::object& y0) {
    const Vector y = to_vector(y0, "y0");
    Vector yp;
    {
      py::gil_scoped_release release;
      yp = initial_derivative(p.dae, t0, y);
    }
    return vector_array(yp);
  });
  m.attr("__version__") = DAEKIT_VERSION;
}
