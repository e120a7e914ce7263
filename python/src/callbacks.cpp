// Python and compiled callbacks of the module (callbacks.hpp).
#include "callbacks.hpp"

#include <stdexcept>

namespace daekit::python {

void compiled_failed(const Compiled& c, int code) {
  const std::string what = "compiled callback " + (c.name.empty() ? std::string("?") : c.name) +
                           " returned " + std::to_string(code);
  if (code > 0) throw RecoverableError(what + " (recoverable: a smaller step is tried)");
  throw std::runtime_error(what);
}

py::object& recoverable_error_type() {
  static py::object* type = new py::object();  // never destroyed: outlives the interpreter
  return *type;
}

void rethrow_python(py::error_already_set& e) {
  std::string text;
  const bool recoverable = recoverable_error_type() && e.matches(recoverable_error_type());
  try {
    py::object lines =
        py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    text = py::str("").attr("join")(lines).cast<std::string>();
    while (!text.empty() && text.back() == '\n') text.pop_back();
  } catch (...) {
    text = e.what();
  }
  if (recoverable) throw RecoverableError(text);
  throw std::runtime_error("Python exception:\n" + text);
}

py::object call_python(const PyCallable& c, double t, std::initializer_list<py::handle> arrays,
                       const VecIn* p) {
  const py::tuple& extra = reinterpret_cast<const py::tuple&>(c.args->obj);
  const size_t n_extra = extra.size();
  const size_t size = 1 + arrays.size() + n_extra + (c.pass_p && p ? 1 : 0);
  py::tuple call_args(size);
  size_t k = 0;
  call_args[k++] = py::float_(t);
  for (const py::handle& a : arrays) call_args[k++] = py::reinterpret_borrow<py::object>(a);
  for (size_t i = 0; i < n_extra; ++i) call_args[k++] = extra[i];
  if (c.pass_p && p) call_args[k++] = to_array(p->data(), p->size());
  PyObject* r = PyObject_CallObject(c.fn->obj.ptr(), call_args.ptr());
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

void read_vector(const py::handle& result, VecOut out, const std::string& what) {
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  Array a = Array::ensure(result);
  if (!a) {
    PyErr_Clear();
    throw std::runtime_error(
        what + " returned " +
        py::str(py::type::handle_of(result).attr("__name__")).cast<std::string>() +
        ", not an array of numbers");
  }
  if (a.size() != out.size())
    throw std::runtime_error(what + " returned " + std::to_string(a.size()) + " values, expected " +
                             std::to_string(out.size()));
  const double* d = a.data();
  for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = d[i];
}

void read_matrix(const py::handle& result, Eigen::Ref<Matrix> out, const std::string& what) {
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  if (py::hasattr(result, "toarray") && !py::isinstance<py::array>(result)) {
    read_matrix(result.attr("toarray")(), out, what);
    return;
  }
  Array a = Array::ensure(result);
  if (!a) {
    PyErr_Clear();
    throw std::runtime_error(what + " did not return an array of numbers");
  }
  const Eigen::Index rows = out.rows(), cols = out.cols();
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols) {
    std::string shape;
    for (py::ssize_t i = 0; i < a.ndim(); ++i)
      shape += (i ? ", " : "") + std::to_string(a.shape(i));
    throw std::runtime_error(what + " returned an array of shape (" + shape + "), expected (" +
                             std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  const double* d = a.data();
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) out(i, j) = d[i * cols + j];
}

void read_sparse(const py::handle& result, SparseMatrix& out, const std::string& what) {
  if (py::isinstance<py::array>(result) || !py::hasattr(result, "tocoo")) {
    Matrix dense(out.rows(), out.cols());
    read_matrix(result, dense, what);
    for (int j = 0; j < out.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(out, j); it; ++it) it.valueRef() = dense(it.row(), j);
    for (int j = 0; j < out.outerSize(); ++j)
      for (int i = 0; i < out.rows(); ++i)
        if (dense(i, j) != 0.0) {
          bool found = false;
          for (SparseMatrix::InnerIterator it(out, j); it && !found; ++it) found = it.row() == i;
          if (!found)
            throw std::runtime_error(what + ": entry (" + std::to_string(i) + ", " +
                                     std::to_string(j) + ") is outside jac_sparsity");
        }
    return;
  }
  py::object coo = result.attr("tocoo")();
  using IntArray = py::array_t<long long, py::array::c_style | py::array::forcecast>;
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  IntArray rows = IntArray::ensure(coo.attr("row")), cols = IntArray::ensure(coo.attr("col"));
  Array data = Array::ensure(coo.attr("data"));
  const py::tuple shape = coo.attr("shape");
  if (shape[0].cast<long>() != out.rows() || shape[1].cast<long>() != out.cols())
    throw std::runtime_error(what + " returned a sparse matrix of the wrong shape");
  for (int j = 0; j < out.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(out, j); it; ++it) it.valueRef() = 0.0;
  for (py::ssize_t k = 0; k < data.size(); ++k) {
    const long long i = rows.data()[k], j = cols.data()[k];
    bool found = false;
    for (SparseMatrix::InnerIterator it(out, static_cast<int>(j)); it; ++it)
      if (it.row() == i) {
        it.valueRef() += data.data()[k];
        found = true;
        break;
      }
    if (!found && data.data()[k] != 0.0)
      throw std::runtime_error(what + ": entry (" + std::to_string(i) + ", " + std::to_string(j) +
                               ") is outside jac_sparsity");
  }
}

}  // namespace daekit::python
