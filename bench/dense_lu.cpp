// Dense LU factorisation: daekit's dense backend (the linear solver the methods use) with its
// right-looking kernel forced and with its recursive blocked LU forced (product buffers
// allocated once, at creation), and Eigen's blocked PartialPivLU (which allocates its product
// buffers in every compute()), real and complex, interleaved in one run (plain program: prints a
// table; timing lives here, never in the tests). Per size: the three factorisations of the same
// random matrix (entries uniform in [-1, 1], real and imaginary parts) are timed in turn, round
// after round, and the median CPU time of each is reported with the ratios kernel / blocked,
// blocked / Eigen and used / Eigen (the path the backend takes at that size by default:
// dense_lu_blocked_min_size() in dense_lu.hpp). Every timed call factors a fresh copy of the matrix
// (the copy is inside the timing for all three: Eigen's compute() copies its argument). The last
// columns check the factors: max |x - x_Eigen| / max |x_Eigen| for the solution of A x = b from
// both paths.
//
//   build/bench/daekit_dense_lu                  n = 16 ... 2000 (the kernel up to n = 1000)
//   build/bench/daekit_dense_lu --quick          fewer rounds, n <= 500
//   build/bench/daekit_dense_lu --sizes 500,2000 [--kernel]   chosen sizes (--kernel: time the
//                                                right-looking kernel at n > 1000 too)
#include "linalg/dense_lu.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "linalg/linear_solver.hpp"

using namespace daekit;

namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

template <typename Scalar>
Scalar random_entry(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<Scalar, double>)
    return u(rng);
  else
    return Scalar(u(rng), u(rng));
}

template <typename Scalar>
void run_size(int n, bool with_kernel, int rounds, const char* type) {
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  std::mt19937_64 rng(12345 + n);
  Mat A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = random_entry<Scalar>(rng);
  Vec b(n);
  for (int i = 0; i < n; ++i) b[i] = random_entry<Scalar>(rng);

  // the three, each factoring its own copy: the backend with the kernel forced, the backend
  // with the blocked LU forced (both as the methods use them: buffers allocated here), Eigen
  const auto kernel = make_dense_solver<Scalar>(n, std::numeric_limits<int>::max());
  const auto blocked = make_dense_solver<Scalar>(n, 0);
  Eigen::PartialPivLU<Mat> eigen_lu(n);
  std::vector<double> t_kernel, t_blocked, t_eigen;
  bool ok = true;
  auto time_backend = [&](LinearSolver<Scalar>& s, std::vector<double>& times) {
    const double t0 = cpu_now();
    s.matrix().dense() = A;
    ok = s.factor() && ok;
    times.push_back(cpu_now() - t0);
  };
  for (int r = 0; r < rounds; ++r) {
    if (with_kernel) time_backend(*kernel, t_kernel);
    time_backend(*blocked, t_blocked);
    const double t0 = cpu_now();
    eigen_lu.compute(A);
    t_eigen.push_back(cpu_now() - t0);
  }
  const Vec x_eigen = eigen_lu.solve(b);
  const double scale = x_eigen.cwiseAbs().maxCoeff();
  auto deviation = [&](const LinearSolver<Scalar>& s) {
    Vec x = b;
    s.solve_in_place(x);
    return (x - x_eigen).cwiseAbs().maxCoeff() / scale;
  };
  const double mk = median(t_kernel), mb = median(t_blocked), me = median(t_eigen);
  // what the backend takes at this size (make_dense_solver's default threshold)
  const bool uses_blocked = n >= dense_lu_blocked_min_size<Scalar>();
  char kernel_ms[32] = "-", kernel_ratio[32] = "-", kernel_diff[32] = "-", used_ratio[32] = "-";
  if (with_kernel) {
    std::snprintf(kernel_ms, sizeof kernel_ms, "%.3f", 1e3 * mk);
    std::snprintf(kernel_ratio, sizeof kernel_ratio, "%.2f", mk / mb);
    std::snprintf(kernel_diff, sizeof kernel_diff, "%.1e", deviation(*kernel));
  }
  if (uses_blocked || with_kernel)
    std::snprintf(used_ratio, sizeof used_ratio, "%.2f", (uses_blocked ? mb : mk) / me);
  std::printf("%-7s %5d %6d | %10s %10.3f %10.3f | %7s %-7s %8s | %7.2f | %-4s %9s %9.1e\n", type,
              n, rounds, kernel_ms, 1e3 * mb, 1e3 * me, used_ratio,
              uses_blocked ? "blocked" : "kernel", kernel_ratio, mb / me, ok ? "ok" : "FAIL",
              kernel_diff, deviation(*blocked));
  std::fflush(stdout);
}

int rounds_for(int n, bool quick) {
  const double flops = 2.0 / 3.0 * n * static_cast<double>(n) * n;
  int r = static_cast<int>(3e8 / flops);  // about 0.1 s of factorisations per path and size
  r = std::clamp(r, 5, 401);
  if (quick) r = std::max(3, r / 4);
  return r | 1;  // odd: a true median
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, kernel_large = false;
  std::vector<int> sizes = {16, 32, 48, 64, 96, 128, 192, 256, 384, 500, 1000, 2000};
  std::string rerun = "build/bench/daekit_dense_lu";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
      sizes = {16, 32, 64, 96, 128, 192, 256, 500};
      rerun += " --quick";
    } else if (!std::strcmp(argv[i], "--kernel")) {
      kernel_large = true;
      rerun += " --kernel";
    } else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      rerun += std::string(" --sizes ") + argv[i + 1];
      for (char* s = std::strtok(argv[++i], ","); s; s = std::strtok(nullptr, ",")) {
        const int n = std::atoi(s);
        if (n < 1 || n > 20000) {
          std::fprintf(stderr, "daekit_dense_lu: sizes must lie in [1, 20000], got '%s'\n", s);
          return 2;
        }
        sizes.push_back(n);
      }
    } else {
      std::fprintf(stderr, "usage: daekit_dense_lu [--quick] [--sizes N1,N2,...] [--kernel]\n");
      return 2;
    }
  }
  std::printf(
      "Dense LU factorisation, CPU ms per factorisation (median over the rounds, the three\n"
      "interleaved); the dense backend takes the blocked LU from n = %d (real), %d (complex)\n",
      dense_lu_blocked_min_size<double>(), dense_lu_blocked_min_size<std::complex<double>>());
  std::printf("rerun: %s\n\n", rerun.c_str());
  std::printf("%-7s %5s %6s | %10s %10s %10s | %7s %-7s %8s | %7s | %-4s %9s %9s\n", "scalar", "n",
              "rounds", "kernel ms", "blocked ms", "Eigen ms", "used/Eig", "(used)", "ker/blk",
              "blk/Eig", "ok", "dx kernel", "dx blocked");
  for (int n : sizes) {
    const bool with_kernel = n <= 1000 || kernel_large;
    run_size<double>(n, with_kernel, rounds_for(n, quick), "real");
    run_size<std::complex<double>>(n, with_kernel, std::max(3, rounds_for(n, quick) / 4) | 1,
                                   "complex");
  }
  return 0;
}
