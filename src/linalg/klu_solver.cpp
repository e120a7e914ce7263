// The sparse backend of linear_solver.hpp: SuiteSparse KLU (T. A. Davis and E. Palamadai
// Natarajan, "Algorithm 907: KLU, a direct sparse solver for circuit simulation problems", ACM
// TOMS 37(3), 2010) on matrix().sparse(), a compressed-column matrix with a fixed pattern.
//   klu_analyze   once per solver (the pattern never changes): BTF permutation to block upper
//                 triangular form, AMD ordering of the diagonal blocks;
//   klu_factor    the first numeric factorisation: left-looking Gilbert-Peierls LU of each
//                 block, rows scaled by their maxima (KLU's default), threshold partial pivoting
//                 that keeps the diagonal of the ordered block if |a_kk| >= tol max_i |a_ik|.
//                 tol = 0.1 (UMFPACK's default), not KLU's 0.001: with 0.001 the multipliers may
//                 reach 1000, and on the test matrices (small diagonals, pivoting needed) the
//                 relative residuals ||Ax - b|| / (||A|| ||x||) went up to 7e-12 (above 1e-13
//                 already for n = 6), against below 1e-13 with 0.1 as for the dense and banded
//                 LU. A stiff iteration matrix gamma/h M - J usually has a heavy diagonal, so
//                 the stricter tolerance rarely costs fill;
//   klu_refactor  every later factor(): the same pivot order with the new values, no search and
//                 no allocation. The pivot order chosen for other values can be poor (or hit an
//                 exact zero) for these, so the refactorisation is checked and replaced by a
//                 fresh klu_factor (a new pivot order) when
//                   - klu_refactor fails or reports a zero pivot,
//                   - klu_rcond (min |U_kk| / max |U_kk| of the scaled blocks) < 1e-12 (this
//                     also catches a zero 1 x 1 block of the BTF form, which klu_refactor does
//                     not check, and a tiny pivot without element growth), or
//                   - the reciprocal pivot growth (klu_rgrowth: min over the columns of the
//                     non-singleton blocks of max |A(:, j)| / max |U(:, j)|, at most 1) is below
//                     1e-2 times that of the last fresh factorisation: the element growth of the
//                     old pivot order exceeds that of KLU's own pivoting by more than a factor
//                     100, so the backward error of the solves stays within a modest factor of
//                     a freshly pivoted LU's.
//                 A matrix that is itself that badly conditioned (rcond < 1e-12 with any pivot
//                 order) is therefore factored afresh every time: a cost, not an error.
//                 Accepted refactorisations allocate nothing (klu_rcond and klu_rgrowth neither);
//                 the fresh factorisations do.
// Ordering of large patterns: KLU orders each diagonal block of the BTF form by AMD on the
// pattern of A + A^T. For the matrices of two- and three-dimensional meshes (heat2d) nested
// dissection fills less: from n = kNestedDissectionMinSize on, the pattern is also ordered by
// METIS (CHOLMOD's cholmod_metis, when the build has CHOLMOD) and the ordering with the
// smaller Cholesky fill estimate of A + A^T is kept. Measured on heat2d's iteration matrix
// (bench/scaling.cpp, docs/benchmarks.md): n = 1e5, nnz(L + U) 6.4e6 -> 5.4e6, refactorisation
// 0.31 -> 0.24 s; n = 1e6, 9.5e7 -> 6.8e7, 22.7 -> 13.7 s; the analysis costs 0.3 s and 4 s
// (once per solver). Circuit matrices (BTF blocks of a few nodes) stay with AMD.
// Complex matrices use KLU's complex routines (klu_z_*): Eigen's std::complex values are
// interleaved (re, im) pairs, KLU's complex format.
//
// Singular matrices: Common.halt_if_singular stays true (KLU's default): at an exactly zero pivot
// klu_factor stops and returns no factorisation (and klu_refactor returns false) instead of
// continuing with a zero U_kk and dividing by it (false would give a factorisation with Inf/NaN
// in L and a zero U_kk that klu_solve divides by). KLU does not see NaN (its pivot search skips
// it), so the values are checked for finiteness before every factorisation, and a fresh
// factorisation is also rejected when klu_rcond is not positive (overflow to Inf or NaN on the
// diagonal of U). In all these cases factor() returns false.
#include <klu.h>
#ifdef DAEKIT_HAVE_CHOLMOD
#include <cholmod.h>
#endif

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "linalg/linear_solver.hpp"

namespace daekit {

namespace {

// Threshold partial pivoting of klu_factor and the refactorisation check (see above).
constexpr double kPivotTolerance = 0.1;
// Patterns from this size on are also ordered by nested dissection (see above).
constexpr int kNestedDissectionMinSize = 50000;

#ifdef DAEKIT_HAVE_CHOLMOD
// KLU's user ordering (Common.ordering = 3): METIS nested dissection of the pattern of the block
// plus its transpose, through CHOLMOD; returns CHOLMOD's estimate of nnz(L) of the Cholesky
// factor of A + A^T in that order (0 on failure, as KLU expects).
int nested_dissection(int n, int* Ap, int* Ai, int* Perm, klu_common*) {
  cholmod_common cc;
  cholmod_start(&cc);
  std::vector<std::vector<int>> upper(static_cast<size_t>(n));  // strict upper part, by columns
  for (int j = 0; j < n; ++j)
    for (int p = Ap[j]; p < Ap[j + 1]; ++p) {
      const int i = Ai[p];
      if (i < j) upper[j].push_back(i);
      if (i > j) upper[i].push_back(j);
    }
  size_t nnz = 0;
  for (std::vector<int>& col : upper) {
    std::sort(col.begin(), col.end());
    col.erase(std::unique(col.begin(), col.end()), col.end());
    nnz += col.size() + 1;
  }
  long lnz = 0;
  cholmod_sparse* B =
      cholmod_allocate_sparse(n, n, nnz, 1, 1, 1, CHOLMOD_PATTERN, &cc);  // symmetric (upper)
  if (B != nullptr) {
    int* Bp = static_cast<int*>(B->p);
    int* Bi = static_cast<int*>(B->i);
    int k = 0;
    for (int j = 0; j < n; ++j) {
      Bp[j] = k;
      for (int i : upper[j]) Bi[k++] = i;
      Bi[k++] = j;
    }
    Bp[n] = k;
    if (cholmod_metis(B, nullptr, 0, 1, Perm, &cc)) {
      cholmod_factor* L = cholmod_analyze_p(B, Perm, nullptr, 0, &cc);
      if (L != nullptr) {
        const int* count = static_cast<const int*>(L->ColCount);
        for (int j = 0; j < n; ++j) lnz += count[j];
        cholmod_free_factor(&L, &cc);
      }
    }
    cholmod_free_sparse(&B, &cc);
  }
  cholmod_finish(&cc);
  return static_cast<int>(std::min<long>(lnz, 2000000000L));
}
#endif
constexpr double kMinRefactorRcond = 1e-12;
constexpr double kMinRefactorGrowthRatio = 1e-2;

template <typename Scalar>
class KluSolver final : public LinearSolver<Scalar> {
  static constexpr bool kComplex = !std::is_same_v<Scalar, double>;

 public:
  using typename LinearSolver<Scalar>::VectorType;

  KluSolver(int n, const SparseMatrix& pattern) {
    this->matrix_.resize(n, Sparsity::sparse(pattern));  // validates the size of the pattern
    klu_defaults(&common_);
    common_.tol = kPivotTolerance;
    common_.halt_if_singular = 1;  // KLU's default, stated: see the comment at the top
    if (n == 0) return;
    auto& a = this->matrix_.sparse();
    symbolic_ = klu_analyze(n, a.outerIndexPtr(), a.innerIndexPtr(), &common_);
#ifdef DAEKIT_HAVE_CHOLMOD
    if (symbolic_ != nullptr && n >= kNestedDissectionMinSize) {  // AMD or nested dissection
      klu_common nd = common_;
      nd.ordering = 3;
      nd.user_order = nested_dissection;
      klu_symbolic* other = klu_analyze(n, a.outerIndexPtr(), a.innerIndexPtr(), &nd);
      if (other != nullptr && other->lnz > 0 && other->lnz < 0.9 * symbolic_->lnz) {
        klu_free_symbolic(&symbolic_, &common_);
        symbolic_ = other;
        common_ = nd;
      } else if (other != nullptr) {
        klu_free_symbolic(&other, &nd);
      }
    }
#endif
    if (symbolic_ == nullptr) {
      if (common_.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
      throw InvalidArgument("KLU: symbolic analysis of the " + std::to_string(n) + " x " +
                            std::to_string(n) + " sparsity pattern failed (KLU status " +
                            std::to_string(common_.status) + ")");
    }
  }
  ~KluSolver() override {
    free_numeric();
    if (symbolic_ != nullptr) klu_free_symbolic(&symbolic_, &common_);
  }
  KluSolver(const KluSolver&) = delete;
  KluSolver& operator=(const KluSolver&) = delete;

  const char* name() const override { return "KLU"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Sparse; }

  bool factor() override {
    if (this->size() == 0) return true;
    auto& a = this->matrix_.sparse();
    int* ap = a.outerIndexPtr();
    int* ai = a.innerIndexPtr();
    double* ax = reinterpret_cast<double*>(a.valuePtr());
    const Eigen::Index nvalues = a.nonZeros() * (kComplex ? 2 : 1);
    if (!Eigen::Map<const Eigen::VectorXd>(ax, nvalues).allFinite()) return false;

    if (numeric_ != nullptr) {
      const int ok = kComplex ? klu_z_refactor(ap, ai, ax, symbolic_, numeric_, &common_)
                              : klu_refactor(ap, ai, ax, symbolic_, numeric_, &common_);
      if (ok && common_.status == KLU_OK && refactor_acceptable(ap, ai, ax)) return true;
      free_numeric();  // partially defined or poorly pivoted: start afresh
    }
    numeric_ = kComplex ? klu_z_factor(ap, ai, ax, symbolic_, &common_)
                        : klu_factor(ap, ai, ax, symbolic_, &common_);
    if (numeric_ == nullptr) {  // KLU_SINGULAR (halted at a zero pivot) or an error
      if (common_.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
      return false;
    }
    const double rcond = reciprocal_condition();
    if (!(rcond > 0.0)) {  // Inf or NaN on the diagonal of U (overflow), or a zero pivot
      free_numeric();
      return false;
    }
    const double rgrowth = reciprocal_growth(ap, ai, ax);
    fresh_rgrowth_ = rgrowth > 0.0 && rgrowth <= 1.0 ? rgrowth : 1.0;
    return true;
  }

  // klu_solve works in the numeric object's workspace: no allocation (and no concurrent solves
  // with one solver).
  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    const int n = this->size();
    if (n == 0) return;
    if (numeric_ == nullptr) {  // no successful factorisation to solve with
      b.setConstant(Scalar(std::numeric_limits<double>::quiet_NaN()));
      return;
    }
    double* bx = reinterpret_cast<double*>(b.data());
    if constexpr (kComplex)
      klu_z_solve(symbolic_, numeric_, n, 1, bx, &common_);
    else
      klu_solve(symbolic_, numeric_, n, 1, bx, &common_);
  }

 private:
  void free_numeric() {
    if (numeric_ != nullptr) klu_free_numeric(&numeric_, &common_);  // frees real and complex
    numeric_ = nullptr;
  }
  // klu_rcond: min |U_kk| / max |U_kk| (0 if a pivot is zero or NaN); NaN if it failed.
  double reciprocal_condition() {
    const int ok = kComplex ? klu_z_rcond(symbolic_, numeric_, &common_)
                            : klu_rcond(symbolic_, numeric_, &common_);
    return ok ? common_.rcond : std::numeric_limits<double>::quiet_NaN();
  }
  // klu_rgrowth: the reciprocal pivot growth; NaN if it failed.
  double reciprocal_growth(int* ap, int* ai, double* ax) {
    const int ok = kComplex ? klu_z_rgrowth(ap, ai, ax, symbolic_, numeric_, &common_)
                            : klu_rgrowth(ap, ai, ax, symbolic_, numeric_, &common_);
    return ok ? common_.rgrowth : std::numeric_limits<double>::quiet_NaN();
  }
  bool refactor_acceptable(int* ap, int* ai, double* ax) {
    if (!(reciprocal_condition() >= kMinRefactorRcond)) return false;
    return reciprocal_growth(ap, ai, ax) >= kMinRefactorGrowthRatio * fresh_rgrowth_;
  }

  mutable klu_common common_;  // klu_solve records its status in it
  klu_symbolic* symbolic_ = nullptr;
  klu_numeric* numeric_ = nullptr;
  double fresh_rgrowth_ = 1.0;  // reciprocal pivot growth of the last klu_factor
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_klu_solver(int n, const SparseMatrix& pattern) {
  return std::make_unique<KluSolver<Scalar>>(n, pattern);
}

template std::unique_ptr<LinearSolver<double>> make_klu_solver<double>(int, const SparseMatrix&);
template std::unique_ptr<LinearSolver<std::complex<double>>> make_klu_solver<std::complex<double>>(
    int, const SparseMatrix&);

}  // namespace daekit
