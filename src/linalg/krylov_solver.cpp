// The iterative backend of linear_solver.hpp ("iterative"): restarted GMRES (Saad and Schultz,
// SIAM J. Sci. Stat. Comput. 7, 1986) preconditioned from the right by one V-cycle of
// smoothed-aggregation AMG (amg.hpp), for large sparse iteration matrices of mesh problems where
// the fill of a sparse LU grows faster than n (heat2d: KLU's factorisation O(n^1.5) flops).
//   factor():         the AMG hierarchy of matrix() (O(nnz) work and memory per level);
//   solve_in_place(): GMRES(kRestart) on A x = b from x = 0 with the flexible form's stored
//                     preconditioned directions z_j = M^{-1} v_j (x = Z y), until
//                     ||b - A x|| <= kRelTol ||b|| or kMaxIterations products; Givens rotations
//                     (complex ones for complex A: c real, |c|^2 + |s|^2 = 1) on the Hessenberg
//                     matrix give the residual norm at every iteration without forming x.
// The tolerance is relative to ||b||, 1e-6: each Newton iteration of the methods recomputes
// its residual exactly, so an inexact solve slows the iteration by at most a factor ~1e-6 per
// step instead of limiting the accuracy it reaches. Measured on heat2d (n = 1e4 and 1e5,
// rtol = atol = 1e-6 and 1e-9): bdf takes the same steps to the same scd as with KLU; radau5
// the same steps within one and scd within 0.06 (its error estimate is one solve); 1e-10
// costs 50 % more time per solve for no change, 1e-4 moves radau5's scd by 0.1. A solve that stops
// at kMaxIterations without reaching it, or meets a non-finite residual (the AMG cycle diverges:
// Gauss-Seidel on rows far from diagonal dominance), answers NaN and says why in
// solve_failure(): the methods fail the step with that message, and a problem the backend
// cannot solve ends in a failure status after a few shrinking steps instead of creeping on
// with inaccurate solves (air-pipe-1000: steps of 1e-8 at 0.2 s each before). No allocation in
// solve_in_place() (the Krylov basis is sized in factor()).
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>

#include "linalg/amg.hpp"
#include "linalg/linear_solver.hpp"

namespace daekit {

namespace {

double abs2(double x) { return x * x; }
double abs2(const std::complex<double>& x) { return std::norm(x); }
double conj_of(double x) { return x; }
std::complex<double> conj_of(const std::complex<double>& x) { return std::conj(x); }

template <typename Scalar>
class KrylovSolver final : public LinearSolver<Scalar> {
 public:
  using typename LinearSolver<Scalar>::VectorType;
  using Dense = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  static constexpr int kRestart = 30;
  static constexpr int kMaxIterations = 150;
  static constexpr double kRelTol = 1e-6;

  KrylovSolver(int n, const SparseMatrix& pattern) {
    this->matrix_.resize(n, Sparsity::sparse(pattern));
  }
  const char* name() const override { return "GMRES + AMG"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Iterative; }
  const char* singular_reason() const override {
    if (failures_ >= kMaxSolveFailures)
      return "the iterative linear solver failed 10 solves without 100 successful ones in "
             "between (GMRES + AMG diverges or stagnates on this matrix, typically rows far "
             "from diagonal dominance): use 'sparse' or 'dense'";
    if (!nonfinite_ && !amg_.failure().empty()) {
      reason_ = amg_.failure() + " (use 'sparse' or 'dense')";
      return reason_.c_str();
    }
    return "a NaN/Inf in the iteration matrix";
  }

  bool factor() override {
    auto& A = this->matrix_.sparse();
    const Scalar* v = A.valuePtr();
    for (Eigen::Index k = 0; k < A.nonZeros(); ++k)
      if (!std::isfinite(std::abs(v[k]))) {
        nonfinite_ = true;
        return valid_ = false;
      }
    nonfinite_ = false;
    if (failures_ >= kMaxSolveFailures) return valid_ = false;  // given up (singular_reason)
    valid_ = amg_.setup(A);
    if (!valid_) return false;
    const Eigen::Index n = A.rows();
    if (V_.rows() != n) {
      V_.setZero(n, kRestart + 1);
      Z_.setZero(n, kRestart);
      w_.setZero(n);
      z_.setZero(n);
      x_.setZero(n);
    }
    return true;
  }

  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    if (!valid_) {  // no successful factorisation: as the direct backends, a NaN answer
      b.setConstant(Scalar(std::nan("")));
      return;
    }
    const auto& A = amg_.fine();
    const double bnorm = b.norm();
    if (bnorm == 0.0 || !std::isfinite(bnorm)) {
      if (!std::isfinite(bnorm)) b.setConstant(Scalar(std::nan("")));
      return;  // b = 0: x = 0 is b itself
    }
    const double target = kRelTol * bnorm;
    failure_ = nullptr;
    // The first cycle starts from x = 0 with the residual b itself (no copy, its norm known);
    // a restart from x_ with the true residual w_ = b - A x_.
    bool restarted = false;
    int done = 0;
    double resid = bnorm;  // the residual norm: true at each restart, Givens' estimate between
    while (done < kMaxIterations) {
      const double beta = restarted ? w_.norm() : bnorm;
      resid = beta;
      if (beta <= target) break;
      if (restarted)
        V_.col(0) = w_ / beta;
      else
        V_.col(0) = b / beta;
      g_.setZero();
      g_[0] = beta;
      int j = 0;
      for (; j < kRestart && done < kMaxIterations; ++j, ++done) {
        // z_j = M^{-1} v_j and z = A z_j (formed within the cycle's last sweep)
        amg_.apply(V_.col(j).data(), Z_.col(j).data(), z_.data());
        const double hnext = orthogonalise(j);
        H_(j + 1, j) = Scalar(hnext);
        if (hnext > 0.0) V_.col(j + 1) = z_ / hnext;
        for (int i = 0; i < j; ++i) rotate(c_[i], s_[i], H_(i, j), H_(i + 1, j));
        givens(H_(j, j), H_(j + 1, j), c_[j], s_[j]);
        rotate(c_[j], s_[j], H_(j, j), H_(j + 1, j));
        rotate(c_[j], s_[j], g_[j], g_[j + 1]);
        resid = std::abs(g_[j + 1]);
        if (!std::isfinite(resid)) {  // the preconditioner diverged (NaN/Inf): give up at once
          failure_ =
              "the iterative linear solver diverged (NaN/Inf in GMRES + AMG: the iteration "
              "matrix is too far from diagonal dominance for its Gauss-Seidel smoothing; use "
              "'sparse')";
          b.setConstant(Scalar(std::nan("")));
          count_failure(done + 1);
          return;
        }
        if (resid <= target || hnext == 0.0) {
          ++j;
          ++done;
          break;
        }
      }
      // y from the triangular system, x += Z y
      for (int i = j - 1; i >= 0; --i) {
        Scalar s = g_[i];
        for (int k = i + 1; k < j; ++k) s -= H_(i, k) * y_[k];
        y_[i] = s / H_(i, i);
      }
      if (resid <= target) {  // converged (Givens' estimate): the answer straight into b
        combine(j, restarted, b.data());
        return succeed(done);
      }
      combine(j, restarted, x_.data());
      // the true residual for the restart (and the stopping test)
      csr_multiply(A, x_, w_);
      w_ = b - w_;
      restarted = true;
    }
    if (resid > target) {  // kMaxIterations without reaching the tolerance: no answer
      failure_ =
          "the iterative linear solver did not converge (150 GMRES + AMG iterations without "
          "reaching a relative residual of 1e-6; use 'sparse')";
      b.setConstant(Scalar(std::nan("")));
      count_failure(done);
      return;
    }
    b = x_;  // a restart's true residual met the tolerance
    succeed(done);
  }
  const char* solve_failure() const override { return failure_; }

 private:
  // The rotation G = [c s; -conj(s) c] (c real) with G [a; b] = [r; 0].
  static void givens(const Scalar& a, const Scalar& b, double& c, Scalar& s) {
    const double na = std::abs(a), nb = std::abs(b);
    if (nb == 0.0) {
      c = 1.0;
      s = Scalar(0);
    } else if (na == 0.0) {
      c = 0.0;
      s = Scalar(1);
    } else {
      const double t = std::sqrt(abs2(a) + abs2(b));
      c = na / t;
      s = (a / na) * conj_of(b) / t;
    }
  }
  static void rotate(double c, const Scalar& s, Scalar& a, Scalar& b) {
    const Scalar ta = c * a + s * b;
    b = -conj_of(s) * a + c * b;
    a = ta;
  }

  AmgHierarchy<Scalar> amg_;
  bool valid_ = false;
  mutable const char* failure_ = nullptr;
  mutable std::string reason_;
  bool nonfinite_ = false;
  // failed solves since the last run of 100 successful ones: at kMaxSolveFailures the backend
  // gives up (factor() fails) instead of letting the method creep on with the tiny steps at
  // which the iteration still converges (air-pipe-1000: steps of 2e-9, 0.2 s each)
  static constexpr int kMaxSolveFailures = 10;
  mutable int failures_ = 0, successes_ = 0;
  void count_failure(int iterations) const {
    count(iterations);
    ++failures_;
    successes_ = 0;
  }
  void succeed(int iterations) const {
    count(iterations);
    if (++successes_ >= 100) failures_ = 0;
  }
  void count(int iterations) const {
    if (this->iterations_) *this->iterations_ += iterations;
  }
  // Modified Gram-Schmidt of z_ against v_0..v_j: h_ij = v_i^H z, z -= h_ij v_i in turn, then
  // ||z||. Each update is fused with the next coefficient's dot product (with ||z|| after the
  // last) in one pass over row blocks that stay in the L1 cache: z is read and written once
  // per basis vector instead of read twice and written once, and the norm's pass is saved
  // (the same values as the plain loops, summed in another order). Returns ||z||.
  double orthogonalise(int j) const {
    constexpr Eigen::Index kBlock = 256;
    const Eigen::Index n = z_.size();
    H_(0, j) = V_.col(0).dot(z_);
    double squared_norm = 0.0;
    for (int i = 0; i <= j; ++i) {
      const Scalar h = H_(i, j);
      const bool last = i == j;
      Scalar next(0);
      for (Eigen::Index i0 = 0; i0 < n; i0 += kBlock) {
        const Eigen::Index m = std::min(kBlock, n - i0);
        auto zb = z_.segment(i0, m);
        zb -= h * V_.col(i).segment(i0, m);
        if (last)
          squared_norm += zb.squaredNorm();
        else
          next += V_.col(i + 1).segment(i0, m).dot(zb);
      }
      if (!last) H_(i + 1, j) = next;
    }
    return std::sqrt(squared_norm);
  }

  // out = x_ (0 in the first cycle) + Z y over the cycle's j directions, each entry summed in
  // direction order as j updates x += y_i z_i would sum it, in row blocks that stay in the L1
  // cache: Z read once and out written once instead of j passes over x.
  void combine(int j, bool add_x, Scalar* out) const {
    constexpr Eigen::Index kBlock = 256;
    const Eigen::Index n = x_.size();
    for (Eigen::Index i0 = 0; i0 < n; i0 += kBlock) {
      const Eigen::Index m = std::min(kBlock, n - i0);
      Scalar* o = out + i0;
      if (!add_x)
        std::fill(o, o + m, Scalar(0));
      else if (o != x_.data() + i0)
        std::copy(x_.data() + i0, x_.data() + i0 + m, o);
      for (int c = 0; c < j; ++c) {
        const Scalar yc = y_[c];
        const Scalar* z = Z_.col(c).data() + i0;
        for (Eigen::Index k = 0; k < m; ++k) o[k] += yc * z[k];
      }
    }
  }
  mutable Dense V_, Z_;
  mutable VectorType w_, z_, x_;
  mutable Eigen::Matrix<Scalar, kRestart + 1, kRestart> H_;
  mutable Eigen::Matrix<Scalar, kRestart + 1, 1> g_;
  mutable Eigen::Matrix<Scalar, kRestart, 1> y_;
  mutable double c_[kRestart] = {};
  mutable Scalar s_[kRestart] = {};
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_krylov_solver(int n, const SparseMatrix& pattern) {
  return std::make_unique<KrylovSolver<Scalar>>(n, pattern);
}

template std::unique_ptr<LinearSolver<double>> make_krylov_solver<double>(int, const SparseMatrix&);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_krylov_solver<std::complex<double>>(int, const SparseMatrix&);

}  // namespace daekit
