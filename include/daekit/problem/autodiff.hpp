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
// no evaluations of f for them (Stats::nfev_jac stays 0).
//
// T = Dual<W> is Eigen's AutoDiffScalar with a fixed-size derivative vector (unsupported/Eigen/
// AutoDiff, from the same Eigen package): measured against a dual number of our own (value and
// W derivatives, one loop per operation) it took 0.65 to 0.85 times the time per Jacobian at
// widths 8 and 16 (its expression templates fuse the derivative arithmetic of an expression),
// 0.65 to 1.0 times at width 4 (docs/results/autodiff.md, bench/autodiff.cpp). Inside the template
// call the mathematical functions unqualified, after `using std::exp;` and so on:
// argument-dependent lookup finds Eigen's overloads (abs, abs2, sqrt, exp, log, pow(x, double),
// sin, cos, tan, asin, acos, sinh, cosh, tanh, min, max) and atan below. Comparisons compare
// values. The engine takes any scalar type with a DualLanes specialisation.
//
// Each callback keeps its own workspace (copied with the problem: a solve's copy is its own),
// sized here; a call allocates only if n or p.size() changed since.
#pragma once

#include <Eigen/Core>  // before the AutoDiff module, which needs it
#include <algorithm>
#include <cmath>
#include <string>
#include <unsupported/Eigen/AutoDiff>
#include <utility>
#include <vector>

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

/// Forward-mode derivatives of fn(t, y, p, out) by columns of one argument (y or p), seeded
/// `width` colours at a time.
template <class Scalar, class Fn>
class ForwardColumns {
  using L = DualLanes<Scalar>;

 public:
  ForwardColumns(Fn fn, int n, int np, std::vector<int> colour, int colours)
      : fn_(std::move(fn)), colour_(std::move(colour)), colours_(colours) {
    resize(n, np);
  }

  /// Evaluates fn on duals with the columns of `by_p ? p : y` of colours [c0, c0 + width)
  /// seeded; then write(i, j, value) for the caller's entries reads derivative(i, j).
  template <class Write>
  void sweep(double t, VecIn y, VecIn p, bool by_p, Write&& write) {
    resize(static_cast<int>(y.size()), static_cast<int>(p.size()));
    Scalar t_const;
    L::set(t_const, t);
    for (int c0 = 0; c0 < colours_; c0 += L::width) {
      for (Eigen::Index j = 0; j < y.size(); ++j) L::set(y_[j], y[j]);
      for (Eigen::Index k = 0; k < p.size(); ++k) L::set(p_[k], p[k]);
      std::vector<Scalar>& seeded = by_p ? p_ : y_;
      if (seeded.size() != colour_.size())
        throw InvalidArgument("set_autodiff_rhs: " + std::string(by_p ? "p" : "y") + " has size " +
                              std::to_string(seeded.size()) + ", the problem had " +
                              std::to_string(colour_.size()) + " when its derivatives were set");
      for (size_t j = 0; j < seeded.size(); ++j) {
        const int lane = colour_[j] - c0;
        if (lane >= 0 && lane < L::width) L::seed(seeded[j], lane);
      }
      for (Scalar& o : out_) L::set(o, 0.0);
      fn_(t_const, y_.data(), p_.data(), out_.data());
      c0_ = c0;
      write();
    }
  }
  /// d out_i / d(column j) in the current sweep, 0 if j's colour is not in it.
  double derivative(int i, int j) const {
    const int lane = colour_[static_cast<size_t>(j)] - c0_;
    return lane >= 0 && lane < L::width ? L::derivative(out_[static_cast<size_t>(i)], lane) : 0.0;
  }
  bool in_sweep(int j) const {
    const int lane = colour_[static_cast<size_t>(j)] - c0_;
    return lane >= 0 && lane < L::width;
  }

 private:
  void resize(int n, int np) {
    if (static_cast<int>(y_.size()) != n) y_.resize(static_cast<size_t>(n));
    if (static_cast<int>(out_.size()) != n) out_.resize(static_cast<size_t>(n));
    if (static_cast<int>(p_.size()) != np) p_.resize(static_cast<size_t>(np));
  }

  Fn fn_;
  std::vector<int> colour_;
  int colours_ = 0;
  int c0_ = 0;
  std::vector<Scalar> y_, p_, out_;
};

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
  if (dae.n <= 0)
    throw InvalidArgument("set_autodiff_rhs: problem '" + dae.name +
                          "': set n (positive) before, got " + std::to_string(dae.n));
  const int n = dae.n, np = static_cast<int>(dae.p.size());
  dae.f = [fn](double t, VecIn y, VecOut out, VecIn p) mutable {
    fn(t, y.data(), p.data(), out.data());
  };
  using Columns = autodiff_detail::ForwardColumns<Scalar, Fn>;
  int colours = 0;
  std::vector<int> colour = column_colours(n, n, dae.jacobian_sparsity, colours);
  Columns by_y(fn, n, np, std::move(colour), colours);
  if (dae.jacobian_sparsity.is_dense()) {
    dae.sparse_jacobian = nullptr;
    dae.jacobian = [by_y](double t, VecIn y, Matrix& J, VecIn p) mutable {
      by_y.sweep(t, y, p, false, [&] {
        for (Eigen::Index j = 0; j < J.cols(); ++j)
          if (by_y.in_sweep(static_cast<int>(j)))
            for (Eigen::Index i = 0; i < J.rows(); ++i)
              J(i, j) = by_y.derivative(static_cast<int>(i), static_cast<int>(j));
      });
    };
  } else {
    dae.jacobian = nullptr;
    dae.sparse_jacobian = [by_y](double t, VecIn y, SparseMatrix& J, VecIn p) mutable {
      by_y.sweep(t, y, p, false, [&] {
        for (int j = 0; j < J.outerSize(); ++j)
          if (by_y.in_sweep(j))
            for (SparseMatrix::InnerIterator it(J, j); it; ++it)
              it.valueRef() = by_y.derivative(static_cast<int>(it.row()), j);
      });
    };
  }
  if (np == 0) return;
  int p_colours = 0;
  std::vector<int> p_colour = column_colours(n, np, dae.parameter_sparsity, p_colours);
  Columns by_p(fn, n, np, std::move(p_colour), p_colours);
  dae.parameter_jacobian = [by_p, sparsity = dae.parameter_sparsity](double t, VecIn y, Matrix& P,
                                                                     VecIn p) mutable {
    by_p.sweep(t, y, p, true, [&] {
      for (Eigen::Index k = 0; k < P.cols(); ++k)
        if (by_p.in_sweep(static_cast<int>(k)))
          for (Eigen::Index i = 0; i < P.rows(); ++i)
            if (sparsity.is_dense() || sparsity.contains(static_cast<int>(i), static_cast<int>(k)))
              P(i, k) = by_p.derivative(static_cast<int>(i), static_cast<int>(k));
    });
  };
}

}  // namespace daekit
