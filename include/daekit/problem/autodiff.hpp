// Exact derivatives of a right-hand side written once as a template (issue 25): forward-mode
// automatic differentiation. The user writes f(t, y, p) for any scalar type T,
//
//     struct Rober {
//       template <class T>
//       void operator()(T t, const T* y, const T* p, T* out) const { out[0] = -p[0] * y[0]; ... }
//     };
//     set_autodiff_rhs(dae, Rober{});   // dae.n, dae.p (and jacobian_sparsity) set before
//
// and set_autodiff_rhs() fills MassMatrixDae::f (T = double), the Jacobian df/dy and the
// parameter Jacobian df/dp (the sensitivities' f_p) with T = Dual<W>, a dual number carrying W
// directional derivatives: each evaluation of f on duals gives W columns exactly (no increment,
// no truncation or cancellation error). The columns are seeded W at a time; with a declared
// jacobian_sparsity (banded or a pattern) columns that share no row are seeded together
// (the Curtis-Powell-Reid colouring of the finite differences), so a banded Jacobian of
// bandwidths (l, u) costs ceil((l + u + 1) / W) evaluations whatever n, and the result goes
// to MassMatrixDae::sparse_jacobian; a dense structure sets MassMatrixDae::jacobian. df/dp is
// coloured by parameter_sparsity in the same way. The solver then counts Jacobians (njac) and
// no evaluations of f for them (Stats::nfev_jac stays 0). set_autodiff_residual() does the same
// for F(t, y, y', p) = 0 (ImplicitDae: F, dF/dy and dF/dy'), from fn(t, y, yp, p, out).
//
// T = Dual<W> is Eigen's AutoDiffScalar with a fixed-size derivative vector (unsupported/Eigen/
// AutoDiff, from the same Eigen package): measured against a dual number of our own (value and
// W derivatives, one loop per operation) it took 0.64 to 0.86 times the time per Jacobian at
// widths 8 and 16 (its expression templates fuse the derivative arithmetic of an expression),
// 0.63 to 0.97 times at width 4 (docs/results/autodiff.md, bench/autodiff.cpp). Inside the
// template call the mathematical functions unqualified, after `using std::exp;` and so on:
// argument-dependent lookup finds Eigen's overloads (abs, abs2, sqrt, exp, log, pow(x, double),
// sin, cos, tan, asin, acos, sinh, cosh, tanh, min, max) and atan below. Comparisons compare
// values. The engine takes any scalar type with a DualLanes specialisation.
//
// Each callback keeps its own workspace (copied with the problem: a solve's copy is its own),
// sized here; a call allocates only if n or p.size() changed since.
#pragma once

#include <Eigen/Core>  // before the AutoDiff module, which needs it
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <utility>
#include <vector>

#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

// atan, which Eigen's AutoDiff module lacks (found by argument-dependent lookup as its others).
namespace Eigen {
template <typename DerType>
AutoDiffScalar<typename internal::remove_all<DerType>::type::PlainObject> atan(
    const AutoDiffScalar<DerType>& x) {
  using Plain = typename internal::remove_all<DerType>::type::PlainObject;
  const double v = x.value();
  return AutoDiffScalar<Plain>(std::atan(v), x.derivatives() / (1.0 + v * v));
}
}  // namespace Eigen

namespace daekit {

/// The scalar type of the derivatives: Eigen's forward-mode AutoDiffScalar with W derivatives
/// in a fixed-size vector (no allocation; its expression templates fuse the derivative
/// arithmetic of a whole expression into one loop).
template <int W>
using Dual = Eigen::AutoDiffScalar<Eigen::Matrix<double, W, 1>>;

// ---------------------------------------------------------------------------------------------
// How the Jacobian engine seeds and reads a scalar type: the value, derivative lane k. A
// specialisation for another forward-mode type (Eigen::AutoDiffScalar with a fixed-size
// derivative vector, bench/autodiff.cpp) lets set_autodiff_rhs use it.

template <class Scalar>
struct DualLanes;

template <int W>
struct DualLanes<Dual<W>> {
  static constexpr int width = W;
  /// x = value with all derivatives zero.
  static void set(Dual<W>& x, double value) {
    x.value() = value;
    x.derivatives().setZero();
  }
  static void seed(Dual<W>& x, int lane) { x.derivatives()[lane] = 1.0; }
  static double derivative(const Dual<W>& x, int lane) { return x.derivatives()[lane]; }
};

/// Colour of each column of a rows x cols structure s, and the number of colours: columns of
/// one colour share no row (the colouring of the finite differences, Curtis, Powell and Reid
/// 1974; dense: one colour per column). Defined in the library
/// (src/nonlinear/autodiff_colouring.cpp).
std::vector<int> column_colours(int rows, int cols, const Sparsity& s, int& colours);

namespace autodiff_detail {

/// Forward-mode derivatives of fn(t, x_0, ..., x_{Args-1}, out) (the arguments: y, p for
/// M y' = f; y, y', p for F(t, y, y', p) = 0) by columns of one argument, the `seeded` one,
/// `width` colours at a time. out has the size of x_0.
template <class Scalar, class Fn, int Args>
class ForwardColumns {
  using L = DualLanes<Scalar>;

 public:
  ForwardColumns(Fn fn, int seeded, std::vector<int> colour, int colours)
      : fn_(std::move(fn)), seeded_(seeded), colour_(std::move(colour)), colours_(colours) {}

  /// For each group of `width` colours: evaluates fn on duals with the seeded argument's
  /// columns of those colours seeded, then write() reads derivative(i, j) for the columns
  /// in_sweep(j).
  template <class Write>
  void sweep(double t, const std::array<const VecIn*, Args>& x, Write&& write) {
    for (int a = 0; a < Args; ++a) resize(x_[a], x[a]->size());
    resize(out_, x[0]->size());
    std::vector<Scalar>& seeded = x_[seeded_];
    if (seeded.size() != colour_.size()) {
      const char* names[] = {"y", Args == 3 ? "y'" : "p", "p"};
      throw InvalidArgument("automatic differentiation: " + std::string(names[seeded_]) +
                            " has size " + std::to_string(seeded.size()) + ", the problem had " +
                            std::to_string(colour_.size()) +
                            " when set_autodiff_rhs / set_autodiff_residual set its derivatives");
    }
    Scalar t_const;
    L::set(t_const, t);
    for (int c0 = 0; c0 < colours_; c0 += L::width) {
      for (int a = 0; a < Args; ++a)
        for (Eigen::Index j = 0; j < x[a]->size(); ++j) L::set(x_[a][j], (*x[a])[j]);
      for (size_t j = 0; j < seeded.size(); ++j) {
        const int lane = colour_[j] - c0;
        if (lane >= 0 && lane < L::width) L::seed(seeded[j], lane);
      }
      for (Scalar& o : out_) L::set(o, 0.0);
      if constexpr (Args == 2)
        fn_(t_const, x_[0].data(), x_[1].data(), out_.data());
      else
        fn_(t_const, x_[0].data(), x_[1].data(), x_[2].data(), out_.data());
      c0_ = c0;
      write();
    }
  }
  /// d out_i / d(column j) in the current sweep, 0 if j's colour is not in it.
  double derivative(int i, int j) const {
    return in_sweep(j)
               ? L::derivative(out_[static_cast<size_t>(i)], colour_[static_cast<size_t>(j)] - c0_)
               : 0.0;
  }
  bool in_sweep(int j) const {
    const int lane = colour_[static_cast<size_t>(j)] - c0_;
    return lane >= 0 && lane < L::width;
  }

 private:
  static void resize(std::vector<Scalar>& v, Eigen::Index size) {
    if (static_cast<Eigen::Index>(v.size()) != size) v.resize(static_cast<size_t>(size));
  }

  Fn fn_;
  int seeded_ = 0;
  std::vector<int> colour_;
  int colours_ = 0;
  int c0_ = 0;
  std::array<std::vector<Scalar>, Args> x_;
  std::vector<Scalar> out_;
};

/// The dense n x n derivative of the current sweep into J (columns in the sweep).
template <class Columns>
void write_dense(const Columns& c, Matrix& J) {
  for (Eigen::Index j = 0; j < J.cols(); ++j)
    if (c.in_sweep(static_cast<int>(j)))
      for (Eigen::Index i = 0; i < J.rows(); ++i)
        J(i, j) = c.derivative(static_cast<int>(i), static_cast<int>(j));
}
/// The same into the stored entries of a sparse J (its pattern).
template <class Columns>
void write_sparse(const Columns& c, SparseMatrix& J) {
  for (int j = 0; j < J.outerSize(); ++j)
    if (c.in_sweep(j))
      for (SparseMatrix::InnerIterator it(J, j); it; ++it)
        it.valueRef() = c.derivative(static_cast<int>(it.row()), j);
}
/// Forward columns of argument `seeded` over the colouring of a rows x cols structure s.
template <class Scalar, int Args, class Fn>
ForwardColumns<Scalar, Fn, Args> columns_of(const Fn& fn, int seeded, int rows, int cols,
                                            const Sparsity& s) {
  int colours = 0;
  std::vector<int> colour = column_colours(rows, cols, s, colours);
  return ForwardColumns<Scalar, Fn, Args>(fn, seeded, std::move(colour), colours);
}

}  // namespace autodiff_detail

/// Sets dae.f, the Jacobian df/dy (dae.jacobian for a dense jacobian_sparsity, else
/// dae.sparse_jacobian on its pattern) and dae.parameter_jacobian (df/dp, when dae.p is not
/// empty) from one template functor fn(T t, const T* y, const T* p, T* out) (see the header).
/// dae.n, dae.p, jacobian_sparsity and parameter_sparsity must be set before: the colourings
/// are computed here. Scalar: Dual<W> (W derivatives per evaluation; 8 by default) or another
/// type with a DualLanes specialisation. Throws InvalidArgument for n <= 0 or a structure
/// that does not fit.
template <class Scalar = Dual<8>, class Fn>
void set_autodiff_rhs(MassMatrixDae& dae, Fn fn) {
  using namespace autodiff_detail;
  if (dae.n <= 0)
    throw InvalidArgument("set_autodiff_rhs: problem '" + dae.name +
                          "': set n (positive) before, got " + std::to_string(dae.n));
  const int n = dae.n, np = static_cast<int>(dae.p.size());
  dae.f = [fn](double t, VecIn y, VecOut out, VecIn p) mutable {
    fn(t, y.data(), p.data(), out.data());
  };
  auto by_y = columns_of<Scalar, 2>(fn, 0, n, n, dae.jacobian_sparsity);
  if (dae.jacobian_sparsity.is_dense()) {
    dae.sparse_jacobian = nullptr;
    dae.jacobian = [by_y](double t, VecIn y, Matrix& J, VecIn p) mutable {
      by_y.sweep(t, {&y, &p}, [&] { write_dense(by_y, J); });
    };
  } else {
    dae.jacobian = nullptr;
    dae.sparse_jacobian = [by_y](double t, VecIn y, SparseMatrix& J, VecIn p) mutable {
      by_y.sweep(t, {&y, &p}, [&] { write_sparse(by_y, J); });
    };
  }
  if (np == 0) return;
  auto by_p = columns_of<Scalar, 2>(fn, 1, n, np, dae.parameter_sparsity);
  dae.parameter_jacobian = [by_p, sparsity = dae.parameter_sparsity](double t, VecIn y, Matrix& P,
                                                                     VecIn p) mutable {
    by_p.sweep(t, {&y, &p}, [&] {
      for (Eigen::Index k = 0; k < P.cols(); ++k)
        if (by_p.in_sweep(static_cast<int>(k)))
          for (Eigen::Index i = 0; i < P.rows(); ++i)
            if (sparsity.is_dense() || sparsity.contains(static_cast<int>(i), static_cast<int>(k)))
              P(i, k) = by_p.derivative(static_cast<int>(i), static_cast<int>(k));
    });
  };
}

/// The same for F(t, y, y', p) = 0: sets dae.F and the exact dF/dy and dF/dy' (dae.dF_dy and
/// dF_dyp for a dense jacobian_sparsity, else sparse_dF_dy and sparse_dF_dyp on its pattern,
/// the structure of dF/dy + c dF/dy') from one template functor
/// fn(T t, const T* y, const T* yp, const T* p, T* out). (dF/dp, the BDF's F_p of the
/// sensitivities, stays the coloured differences over parameter_sparsity: ImplicitDae has no
/// callback for it.) dae.n and jacobian_sparsity must be set before.
template <class Scalar = Dual<8>, class Fn>
void set_autodiff_residual(ImplicitDae& dae, Fn fn) {
  using namespace autodiff_detail;
  if (dae.n <= 0)
    throw InvalidArgument("set_autodiff_residual: problem '" + dae.name +
                          "': set n (positive) before, got " + std::to_string(dae.n));
  const int n = dae.n;
  dae.F = [fn](double t, VecIn y, VecIn yp, VecOut out, VecIn p) mutable {
    fn(t, y.data(), yp.data(), p.data(), out.data());
  };
  auto by_y = columns_of<Scalar, 3>(fn, 0, n, n, dae.jacobian_sparsity);
  auto by_yp = columns_of<Scalar, 3>(fn, 1, n, n, dae.jacobian_sparsity);
  if (dae.jacobian_sparsity.is_dense()) {
    dae.sparse_dF_dy = dae.sparse_dF_dyp = nullptr;
    dae.dF_dy = [by_y](double t, VecIn y, VecIn yp, Matrix& J, VecIn p) mutable {
      by_y.sweep(t, {&y, &yp, &p}, [&] { write_dense(by_y, J); });
    };
    dae.dF_dyp = [by_yp](double t, VecIn y, VecIn yp, Matrix& J, VecIn p) mutable {
      by_yp.sweep(t, {&y, &yp, &p}, [&] { write_dense(by_yp, J); });
    };
  } else {
    dae.dF_dy = dae.dF_dyp = nullptr;
    dae.sparse_dF_dy = [by_y](double t, VecIn y, VecIn yp, SparseMatrix& J, VecIn p) mutable {
      by_y.sweep(t, {&y, &yp, &p}, [&] { write_sparse(by_y, J); });
    };
    dae.sparse_dF_dyp = [by_yp](double t, VecIn y, VecIn yp, SparseMatrix& J, VecIn p) mutable {
      by_yp.sweep(t, {&y, &yp, &p}, [&] { write_sparse(by_yp, J); });
    };
  }
}

}  // namespace daekit
