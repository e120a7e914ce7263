// Compiled callbacks for daekit's Python module, in a shared library (libdaekit_example_models.so,
// built beside the module): Van der Pol and Robertson with the C signatures of docs/python.md.
// Python loads them by name (daekit.compiled_from_library), so that solve_many can send a problem
// to other processes (Dask, MPI) by reference -- a library path and symbol names -- instead of
// pickling a closure. Every function returns 0 (success), > 0 (retry with a smaller step) or < 0
// (fatal).
extern "C" {

// Van der Pol as an ODE (scipy's form): y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps, with
// eps = p[0] (1e-6 without parameters).
int vdp_rhs(double, const double* y, double* f, int n, const double* p, int np, void*) {
  if (n != 2) return -1;
  const double eps = np > 0 ? p[0] : 1e-6;
  f[0] = y[1];
  f[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / eps;
  return 0;
}

int vdp_jac(double, const double* y, double* J, int n, const double* p, int np, void*) {
  if (n != 2) return -1;
  const double eps = np > 0 ? p[0] : 1e-6;
  J[0] = 0;                             // (0, 0)
  J[1] = (-2 * y[0] * y[1] - 1) / eps;  // (1, 0)
  J[2] = 1;                             // (0, 1)
  J[3] = (1 - y[0] * y[0]) / eps;       // (1, 1)
  return 0;
}

// Robertson as a DAE with M = diag(1, 1, 0): the third equation is 0 = y1 + y2 + y3 - 1.
// Rate constants k1, k2, k3 = p (0.04, 3e7, 1e4 without parameters).
int robertson_rhs(double, const double* y, double* f, int n, const double* p, int np, void*) {
  if (n != 3) return -1;
  const double k1 = np > 0 ? p[0] : 0.04, k2 = np > 1 ? p[1] : 3e7, k3 = np > 2 ? p[2] : 1e4;
  f[0] = -k1 * y[0] + k3 * y[1] * y[2];
  f[1] = k1 * y[0] - k3 * y[1] * y[2] - k2 * y[1] * y[1];
  f[2] = y[0] + y[1] + y[2] - 1;
  return 0;
}

int robertson_jac(double, const double* y, double* J, int n, const double* p, int np, void*) {
  if (n != 3) return -1;
  const double k1 = np > 0 ? p[0] : 0.04, k2 = np > 1 ? p[1] : 3e7, k3 = np > 2 ? p[2] : 1e4;
  // column-major: J[i + 3 j] = df_i / dy_j
  J[0] = -k1;
  J[1] = k1;
  J[2] = 1;
  J[3] = k3 * y[2];
  J[4] = -k3 * y[2] - 2 * k2 * y[1];
  J[5] = 1;
  J[6] = k3 * y[1];
  J[7] = -k3 * y[1];
  J[8] = 1;
  return 0;
}

// Robertson in the implicit form F(t, y, y') = 0 (for solve_dae with a compiled residual).
int robertson_residual(double, const double* y, const double* yp, double* F, int n, const double*,
                       int, void*) {
  if (n != 3) return -1;
  F[0] = yp[0] - (-0.04 * y[0] + 1e4 * y[1] * y[2]);
  F[1] = yp[1] - (0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1]);
  F[2] = y[0] + y[1] + y[2] - 1;
  return 0;
}

// A callback that fails: returns the code p[0] (tests of the error path).
int failing_rhs(double, const double*, double* f, int n, const double* p, int np, void*) {
  for (int i = 0; i < n; ++i) f[i] = 0;
  return np > 0 ? static_cast<int>(p[0]) : -7;
}

}  // extern "C"
