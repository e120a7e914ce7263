// IrkSensitivities: forward sensitivities S = dy/dp (n x np) of M y' = f(t, y, p) through the
// steps of an IrkEngine (radau5, radau), by internal differentiation of the step equations,
// staggered after the state's Newton iteration (the staggered direct method of Caracotsios and
// Stewart, Comput. Chem. Eng. 9 (1985); IDAS's staggered corrector for the BDF).
//
// With Z_i = Y_i - y_n the state's stages, (A^{-1} (x) M) Z = h F(Z), differentiating in p_k
// gives for sigma_i = dZ_i/dp_k the linear stage equations
//     M sum_j (A^{-1})_ij sigma_j = h (J_i (S_k + sigma_i) + P_i,k),   i = 1..s,
// J_i = f_y(t_n + c_i h, Y_i), P_i = f_p there, and S_{n+1} = S_n + sum_i d_i sigma_i
// (= S_n + sigma_s for Radau IIA). They are solved by the same transformed iteration as the
// state, with the factorised matrices of the state's simplified Newton iteration (gamma/h M - J
// and (alpha + i beta)/h M - J, J the Jacobian of the step's factorisation) and the exact J_i
// in the residual: a linear fixed-point iteration whose contraction is that of the state's
// simplified Newton iteration, ||(Lambda/h M - J)^{-1} (J_i - J)||, so it converges where the
// state's did; it stops when the rate-corrected increment theta/(1 - theta) |delta| is below
// the state's Newton tolerance in the sensitivities' weights, and fails the attempt (retried
// with a smaller step) when it does not contract (theta > 0.9) or takes more than 25
// iterations. Its fixed point is the exact derivative of the discrete step, so S is consistent
// with y to that tolerance.
//
// The products J_i v use the stage Jacobians (analytic, or the shared coloured differences),
// not directional differences: one Jacobian per stage serves every parameter and iteration
// (directional differences cost s np evaluations of f per iteration) and an analytic Jacobian
// makes them exact. f_p from parameter_jacobian() (the problem's callback, or coloured
// differences over parameter_sparsity: central ones under the error control, whose estimate
// would otherwise sit at the forward differences' noise, MassMatrixSystem::
// set_central_parameter_differences). Per step: s evaluations of f, s Jacobians and s df/dp;
// the last stage's (at y_{n+1} for Radau IIA) serve the next step's error estimate.
//
// Weights of S as IDAS's: ws_ik = rtol |S_ik| + atol_i / pbar_k (pbar_k = |p_k|, 1 where
// p_k = 0), with the state's index scaling. Error estimate of S (Options::
// sensitivity_error_control, IDAS's errconS): the state's RADAU5 estimate applied to sigma,
//     err_k = (gamma/h M - J)^{-1} (G_n,k + M (e^T sigma)/h),  G_n = f_y S_n + f_p at (t_n, y_n),
// and the step's error is the largest of the state's and the sensitivities'. Dense output:
// the state's continuous extension (the collocation polynomial) through S_n, S_n + sigma_i,
// S_{n+1}. No allocation after the constructor. Internal header.
#pragma once

#include <string>
#include <vector>

#include "methods/irk_engine.hpp"
#include "methods/method.hpp"

namespace daekit {

class IrkSensitivities {
 public:
  enum class Outcome { Converged, FunctionFailed, NotConverged };

  IrkSensitivities(MassMatrixSystem& sys, IrkEngine& engine, int max_stages, bool error_control);

  int parameters() const { return np_; }
  bool error_control() const { return error_control_; }
  const Matrix& S() const { return S_; }
  int last_iterations() const { return iterations_; }
  /// What start() could not do and the user should know (empty: nothing).
  const std::string& warning() const { return warning_; }

  /// S at (t0, y0) (f0 = f(t0, y0)): `given` (n x np) or zero, made consistent
  /// (consistent_initial_sensitivities), and G_0 = f_y S + f_p. False with a message.
  bool start(double t0, const Vector& y0, const Vector& f0, const Matrix* given,
             std::string& message);
  /// The sensitivity stage equations of the step (t, y, h) whose state stages the engine holds
  /// (converged). `scal`, `w`: the state's Newton weights and error weights (their ratio is the
  /// index scaling), `rtol`, `atol` the used tolerances, `tol` the Newton tolerance;
  /// `extrapolate`: start from the last accepted step's interpolant (else from zero).
  Outcome solve_step(double t, const Vector& y, double h, const Vector& scal, const Vector& w,
                     double rtol, const Vector& atol, double tol, bool extrapolate);
  /// The largest scaled error estimate of the columns of S (after solve_step()).
  double error_estimate(double h);
  /// The step is accepted: S = S_{n+1}, its interpolant over [t_n, t_n + h].
  void accept(const Vector& y, double h);
  /// S at theta = (t - t_{n+1}) / h_last on the last accepted step's interpolant.
  void dense(double theta, MatOut out) const;

 private:
  bool stage_derivatives(double t, const Vector& y, double h);
  double iterate_column(int k, double h, double tol);
  void residual(int k);

  MassMatrixSystem& sys_;
  IrkEngine& engine_;
  int n_, np_, max_stages_;
  bool error_control_;
  int iterations_ = 0;
  Vector pbar_;
  Matrix S_, S_new_;
  Matrix G0_;       // f_y S + f_p at (t_n, y_n)
  Matrix Gend_;     // the same at the last stage (c_s = 1: at (t_{n+1}, y_{n+1}))
  Matrix Zs_;       // sigma: column k s + i
  Matrix Ws_;       // (T^{-1} (x) I) sigma, the same layout
  Matrix G_;        // J_i (S_k + sigma_i) + P_i,k for the column being iterated (n x s)
  Matrix R_;        // real blocks' right-hand sides (n x s)
  Matrix MW_;       // M W (n x s)
  Matrix Y_, F_;    // stage values and f there (n x s)
  Matrix P_;        // df/dp per stage: block i is n x np
  Matrix weights_;  // ws (n x np)
  std::vector<StructuredMatrix<double>> J_;  // f_y per stage
  std::vector<Eigen::VectorXcd> cpairs_;
  std::vector<IrkDense> dense_;
  Vector tmp_, tmp2_, sk_, sk_new_;
  double last_h_ = 0.0;
  std::string warning_;
};

}  // namespace daekit
