// Python and compiled callbacks of the module (callbacks.hpp).
#include "callbacks.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

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

namespace {

/// True when a is a 1-D, C-contiguous, aligned, writeable array of n native doubles (an array
/// the callback changed in place to anything else is not reused).
bool reusable(const py::object& a, Eigen::Index n) {
  if (!a || !py::isinstance<py::array>(a)) return false;
  const auto* arr = py::detail::array_proxy(a.ptr());
  const auto* descr = py::detail::array_descriptor_proxy(arr->descr);
  using api = py::detail::npy_api;
  constexpr int flags =
      api::NPY_ARRAY_C_CONTIGUOUS_ | api::NPY_ARRAY_ALIGNED_ | api::NPY_ARRAY_WRITEABLE_;
  return arr->nd == 1 && arr->dimensions[0] == n && (arr->flags & flags) == flags &&
         descr->type_num == api::NPY_DOUBLE_ && descr->byteorder != '>';
}

/// The spare array of slot (taken out of it) filled with v, or a new one.
py::object filled_array(const PyRefPtr& slot, const VecIn& v) {
  py::object a = std::move(slot->obj);
  slot->obj = py::none();
  if (!reusable(a, v.size())) return to_array(v.data(), v.size());
  std::copy(v.data(), v.data() + v.size(),
            reinterpret_cast<double*>(py::detail::array_proxy(a.ptr())->data));
  return a;
}

}  // namespace

CallArrays::CallArrays(const PyCallable& c, std::initializer_list<const VecIn*> states,
                       const VecIn* p)
    : c_(c), with_p_(c.pass_p && p) {
  for (const VecIn* s : states) {
    arrays_[n_states_] = filled_array(c.spare[n_states_], *s);
    ++n_states_;
  }
  if (with_p_) arrays_[n_states_] = filled_array(c.spare[n_states_], *p);
}

CallArrays::~CallArrays() {
  // give back the arrays nobody else holds (PyErr state untouched: no Python code runs)
  const size_t count = n_states_ + (with_p_ ? 1 : 0);
  for (size_t k = 0; k < count; ++k)
    if (arrays_[k] && Py_REFCNT(arrays_[k].ptr()) == 1) c_.spare[k]->obj = std::move(arrays_[k]);
}

py::object CallArrays::call(double t) const {
  const py::tuple& extra = reinterpret_cast<const py::tuple&>(c_.args->obj);
  const size_t n_extra = extra.size();
  const size_t count = 1 + n_states_ + n_extra + (with_p_ ? 1 : 0);
  constexpr size_t kOnStack = 8;
  std::array<PyObject*, kOnStack + 1> small{};
  std::vector<PyObject*> large;
  PyObject** stack = small.data();
  if (count > kOnStack) {
    large.resize(count + 1);
    stack = large.data();
  }
  const py::float_ time(t);
  PyObject** args = stack + 1;  // stack[0] free for the callee (PY_VECTORCALL_ARGUMENTS_OFFSET)
  size_t k = 0;
  args[k++] = time.ptr();
  for (size_t i = 0; i < n_states_; ++i) args[k++] = arrays_[i].ptr();
  for (size_t i = 0; i < n_extra; ++i) args[k++] = PyTuple_GET_ITEM(extra.ptr(), i);
  if (with_p_) args[k++] = arrays_[n_states_].ptr();
  PyObject* r =
      PyObject_Vectorcall(c_.fn->obj.ptr(), args, count | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

namespace {

std::string type_name(const py::handle& h) {
  return py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>();
}

std::string shape_text(const py::array& a) {
  std::string shape;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape(i));
  return "(" + shape + (a.ndim() == 1 ? ",)" : ")");
}

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// The result of a callback as a C-ordered array of doubles: numbers only (bool, integers,
/// floating point); complex values, objects, strings and None are refused, never cast.
DoubleArray real_result(const py::handle& result, const std::string& what) {
  if (py::isinstance<py::array>(result)) {  // the common case, without numpy's conversions
    const auto* arr = py::detail::array_proxy(result.ptr());
    const auto* descr = py::detail::array_descriptor_proxy(arr->descr);
    using api = py::detail::npy_api;
    constexpr int flags = api::NPY_ARRAY_C_CONTIGUOUS_ | api::NPY_ARRAY_ALIGNED_;
    if ((arr->flags & flags) == flags && descr->type_num == api::NPY_DOUBLE_ &&
        descr->byteorder != '>')
      return py::reinterpret_borrow<DoubleArray>(result);
  }
  if (result.is_none()) throw std::runtime_error(what + " returned None, not an array of numbers");
  py::array a = py::array::ensure(result);  // np.asarray (fails for ragged sequences)
  if (!a) {
    PyErr_Clear();
    throw std::runtime_error(what + " returned " + type_name(result) + ", not an array of numbers");
  }
  const char kind = a.dtype().kind();
  if (kind == 'c')
    throw std::runtime_error(what +
                             " returned complex values (daekit solves real equations: write the "
                             "real and imaginary parts as separate components)");
  if (kind == 'O' && !py::isinstance<py::array>(result))
    throw std::runtime_error(what + " returned " + type_name(result) + ", not an array of numbers");
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
    throw std::runtime_error(what + " returned an array of dtype " +
                             py::str(a.dtype()).cast<std::string>() + ", not real numbers");
  DoubleArray d = DoubleArray::ensure(a);
  if (!d) {
    PyErr_Clear();
    throw std::runtime_error(what + " returned values that are not real numbers");
  }
  return d;
}

/// daekit._arrays.sparse_coo (the checks of a scipy sparse matrix's arrays), looked up once.
py::object& sparse_coo_function() {
  static py::object* fn =
      new py::object(py::module_::import("daekit._arrays").attr("sparse_coo"));  // never freed
  return *fn;
}

bool is_scipy_sparse(const py::handle& h) {
  return !py::isinstance<py::array>(h) && py::hasattr(h, "tocoo") && py::hasattr(h, "format");
}

/// The checked (rows, cols, data) of a sparse matrix returned by a callback; the checks'
/// ValueError / TypeError becomes the message of the callback error.
struct CooArrays {
  py::array_t<long long, py::array::c_style | py::array::forcecast> rows, cols;
  DoubleArray data;
};

CooArrays checked_coo(const py::handle& result, Eigen::Index rows, Eigen::Index cols,
                      const std::string& what) {
  py::tuple t;
  try {
    t = sparse_coo_function()(result, py::make_tuple(rows, cols), what, true, true)
            .cast<py::tuple>();
  } catch (py::error_already_set& e) {
    throw std::runtime_error(py::str(e.value()).cast<std::string>());
  }
  CooArrays c{decltype(CooArrays::rows)::ensure(t[0]), decltype(CooArrays::cols)::ensure(t[1]),
              DoubleArray::ensure(t[2])};
  if (!c.rows || !c.cols || !c.data) {
    PyErr_Clear();
    throw std::runtime_error(what + " returned a sparse matrix that could not be read");
  }
  // the checks again, in C++: the indices address memory below
  const py::ssize_t nnz = c.data.size();
  if (c.rows.size() != nnz || c.cols.size() != nnz)
    throw std::runtime_error(what + " returned a sparse matrix with inconsistent arrays");
  for (py::ssize_t k = 0; k < nnz; ++k)
    if (c.rows.data()[k] < 0 || c.rows.data()[k] >= rows || c.cols.data()[k] < 0 ||
        c.cols.data()[k] >= cols)
      throw std::runtime_error(what + " returned a sparse matrix with an index out of range");
  return c;
}

}  // namespace

void read_vector(const py::handle& result, VecOut out, const std::string& what) {
  DoubleArray a = real_result(result, what);
  // a vector of n values; a number stands for a vector of one value
  const bool vector_shape = a.ndim() == 1 || (a.ndim() == 0 && out.size() == 1);
  if (!vector_shape)
    throw std::runtime_error(what + " returned an array of shape " + shape_text(a) +
                             ", expected (" + std::to_string(out.size()) + ",)");
  if (a.size() != out.size())
    throw std::runtime_error(what + " returned " + std::to_string(a.size()) + " values, expected " +
                             std::to_string(out.size()));
  const double* d = a.data();
  for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = d[i];
}

double read_scalar(const py::handle& result, const std::string& what) {
  DoubleArray a = real_result(result, what);
  if (a.size() != 1 || a.ndim() > 1)
    throw std::runtime_error(what + " must return a number, returned an array of shape " +
                             shape_text(a));
  return a.data()[0];
}

void read_matrix(const py::handle& result, Eigen::Ref<Matrix> out, const std::string& what) {
  const Eigen::Index rows = out.rows(), cols = out.cols();
  if (is_scipy_sparse(result)) {
    const CooArrays c = checked_coo(result, rows, cols, what);
    out.setZero();
    for (py::ssize_t k = 0; k < c.data.size(); ++k)
      out(c.rows.data()[k], c.cols.data()[k]) += c.data.data()[k];
    return;
  }
  DoubleArray a = real_result(result, what);
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols)
    throw std::runtime_error(what + " returned an array of shape " + shape_text(a) +
                             ", expected (" + std::to_string(rows) + ", " + std::to_string(cols) +
                             ")");
  const double* d = a.data();
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) out(i, j) = d[i * cols + j];
}

namespace {

[[noreturn]] void outside_pattern(const std::string& what, long long i, long long j) {
  throw std::runtime_error(what + ": entry (" + std::to_string(i) + ", " + std::to_string(j) +
                           ") is outside jac_sparsity");
}

}  // namespace

void read_sparse(const py::handle& result, SparseMatrix& out, const std::string& what) {
  const Eigen::Index rows = out.rows(), cols = out.cols();
  if (!is_scipy_sparse(result)) {
    // a dense (rows, cols) array, read in its row-major order without a copy: the pattern's
    // entries take their values, a non-zero elsewhere is an error
    DoubleArray a = real_result(result, what);
    if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols)
      throw std::runtime_error(what + " returned an array of shape " + shape_text(a) +
                               ", expected (" + std::to_string(rows) + ", " + std::to_string(cols) +
                               ")");
    const double* d = a.data();
    for (int j = 0; j < out.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(out, j); it; ++it) it.valueRef() = d[it.row() * cols + j];
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j)
        if (d[i * cols + j] != 0.0) {
          const int* begin = out.innerIndexPtr() + out.outerIndexPtr()[j];
          const int* end = out.innerIndexPtr() + out.outerIndexPtr()[j + 1];
          if (!std::binary_search(begin, end, static_cast<int>(i))) outside_pattern(what, i, j);
        }
    return;
  }
  const CooArrays c = checked_coo(result, rows, cols, what);
  std::fill(out.valuePtr(), out.valuePtr() + out.nonZeros(), 0.0);
  for (py::ssize_t k = 0; k < c.data.size(); ++k) {
    const long long i = c.rows.data()[k], j = c.cols.data()[k];
    const double v = c.data.data()[k];
    const int* begin = out.innerIndexPtr() + out.outerIndexPtr()[j];
    const int* end = out.innerIndexPtr() + out.outerIndexPtr()[j + 1];
    const int* at = std::lower_bound(begin, end, static_cast<int>(i));
    if (at != end && *at == i)
      out.valuePtr()[at - out.innerIndexPtr()] += v;
    else if (v != 0.0)
      outside_pattern(what, i, j);
  }
}

}  // namespace daekit::python
