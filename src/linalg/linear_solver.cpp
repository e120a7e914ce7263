#include "linalg/linear_solver.hpp"

namespace daekit {

const char* to_string(LinearSolverKind kind) {
  switch (kind) {
    case LinearSolverKind::Automatic:
      return "auto";
    case LinearSolverKind::Dense:
      return "dense";
    case LinearSolverKind::Banded:
      return "banded";
    case LinearSolverKind::Sparse:
      return "sparse";
    case LinearSolverKind::Iterative:
      return "iterative";
  }
  return "?";
}

LinearSolverKind parse_linear_solver(const std::string& name) {
  for (LinearSolverKind k :
       {LinearSolverKind::Automatic, LinearSolverKind::Dense, LinearSolverKind::Banded,
        LinearSolverKind::Sparse, LinearSolverKind::Iterative})
    if (name == to_string(k)) return k;
  throw InvalidArgument("unknown linear solver '" + name +
                        "'; choose auto, dense, banded, sparse or iterative");
}

LinearSolverKind choose_backend(int n, const Sparsity& s, LinearSolverKind requested) {
  switch (requested) {
    case LinearSolverKind::Automatic:
      if (s.kind == Sparsity::Kind::Dense || n <= 32) return LinearSolverKind::Dense;
      return s.kind == Sparsity::Kind::Banded ? LinearSolverKind::Banded : LinearSolverKind::Sparse;
    case LinearSolverKind::Banded:
      if (s.kind != Sparsity::Kind::Banded)
        throw InvalidArgument(
            "linear solver 'banded' needs a banded structure (declare the Jacobian's bandwidths), "
            "the problem's is " +
            s.describe(n));
      return requested;
    default:
      return requested;
  }
}

Sparsity backend_structure(int n, const Sparsity& s, LinearSolverKind backend) {
  switch (backend) {
    case LinearSolverKind::Dense:
    case LinearSolverKind::Automatic:
      return Sparsity::dense();
    case LinearSolverKind::Banded:
      return s;
    case LinearSolverKind::Sparse:
    case LinearSolverKind::Iterative:
      return s.kind == Sparsity::Kind::Sparse ? s : Sparsity::sparse(s.to_pattern(n));
  }
  return Sparsity::dense();
}

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_linear_solver(int n, const Sparsity& s,
                                                         LinearSolverKind kind) {
  const LinearSolverKind backend = choose_backend(n, s, kind);
  switch (backend) {
    case LinearSolverKind::Banded:
      return make_banded_solver<Scalar>(n, s.lower, s.upper);
    case LinearSolverKind::Sparse:
      return make_klu_solver<Scalar>(n, backend_structure(n, s, backend).pattern);
    case LinearSolverKind::Iterative:
      return make_krylov_solver<Scalar>(n, backend_structure(n, s, backend).pattern);
    default:
      return make_dense_solver<Scalar>(n);
  }
}

template std::unique_ptr<LinearSolver<double>> make_linear_solver<double>(int, const Sparsity&,
                                                                          LinearSolverKind);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_linear_solver<std::complex<double>>(int, const Sparsity&, LinearSolverKind);

}  // namespace daekit
