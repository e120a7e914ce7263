#include "linalg/structured_matrix.hpp"

#include <algorithm>

namespace daekit {

template <typename Scalar>
void StructuredMatrix<Scalar>::resize(int n, const Sparsity& s) {
  s.validate(n, "StructuredMatrix");
  n_ = n;
  sparsity_ = s;
  dense_.resize(0, 0);
  band_.resize(0, 0);
  sparse_ = SparseType();
  switch (s.kind) {
    case Sparsity::Kind::Dense:
      dense_.setZero(n, n);
      break;
    case Sparsity::Kind::Banded:
      band_.setZero(2 * s.lower + s.upper + 1, n);
      break;
    case Sparsity::Kind::Sparse:
      sparse_ = s.pattern.template cast<Scalar>();
      sparse_.makeCompressed();
      sparse_.coeffs().setZero();
      sparsity_.pattern.makeCompressed();  // Sparsity::contains() reads it as compressed
      sparsity_.pattern.coeffs().setOnes();
      break;
  }
}

template <typename Scalar>
void StructuredMatrix<Scalar>::set_zero() {
  switch (kind()) {
    case Sparsity::Kind::Dense:
      dense_.setZero();
      break;
    case Sparsity::Kind::Banded:
      band_.setZero();
      break;
    case Sparsity::Kind::Sparse:
      sparse_.coeffs().setZero();
      break;
  }
}

template <typename Scalar>
Scalar& StructuredMatrix<Scalar>::ref(int i, int j) {
  switch (kind()) {
    case Sparsity::Kind::Dense:
      return dense_(i, j);
    case Sparsity::Kind::Banded:
      if (i - j > lower() || j - i > upper())
        throw InvalidArgument("StructuredMatrix: entry (" + std::to_string(i) + ", " +
                              std::to_string(j) + ") lies outside the band");
      return band_(band_row(i, j), j);
    case Sparsity::Kind::Sparse: {
      const int* begin = sparse_.innerIndexPtr() + sparse_.outerIndexPtr()[j];
      const int* end = sparse_.innerIndexPtr() + sparse_.outerIndexPtr()[j + 1];
      const int* it = std::lower_bound(begin, end, i);
      if (it == end || *it != i)
        throw InvalidArgument("StructuredMatrix: entry (" + std::to_string(i) + ", " +
                              std::to_string(j) + ") lies outside the sparsity pattern");
      return sparse_.valuePtr()[it - sparse_.innerIndexPtr()];
    }
  }
  return dense_(i, j);
}

template <typename Scalar>
Scalar StructuredMatrix<Scalar>::at(int i, int j) const {
  switch (kind()) {
    case Sparsity::Kind::Dense:
      return dense_(i, j);
    case Sparsity::Kind::Banded:
      if (i - j > lower() || j - i > upper()) return Scalar(0);
      return band_(band_row(i, j), j);
    case Sparsity::Kind::Sparse:
      return sparse_.coeff(i, j);
  }
  return Scalar(0);
}

template <typename Scalar>
void StructuredMatrix<Scalar>::multiply(const Eigen::Ref<const VectorType>& x,
                                        Eigen::Ref<VectorType> y) const {
  switch (kind()) {
    case Sparsity::Kind::Dense:
      y.noalias() = dense_ * x;
      break;
    case Sparsity::Kind::Banded: {
      // row by row: y_i = sum_{j = i-l..i+u} A(i, j) x_j, A(i, j) at band_(l + u + i - j, j),
      // i.e. at offset (ld - 1) j + (l + u + i) of the storage (short dot products: no
      // vectorisation prologues for narrow bands)
      const int l = lower(), u = upper();
      const long ld = band_.rows();
      const Scalar* a = band_.data();
      const Scalar* xp = x.data();
      for (int i = 0; i < n_; ++i) {
        const int lo = std::max(0, i - l), hi = std::min(n_ - 1, i + u);
        Scalar sum(0);
        for (int j = lo; j <= hi; ++j) sum += a[(ld - 1) * j + (l + u + i)] * xp[j];
        y[i] = sum;
      }
      break;
    }
    case Sparsity::Kind::Sparse:
      y.noalias() = sparse_ * x;
      break;
  }
}

template <typename Scalar>
void StructuredMatrix<Scalar>::multiply_add(const Eigen::Ref<const VectorType>& x,
                                            Eigen::Ref<VectorType> y) const {
  switch (kind()) {
    case Sparsity::Kind::Dense:
      y.noalias() += dense_ * x;
      break;
    case Sparsity::Kind::Sparse:
      y.noalias() += sparse_ * x;
      break;
    case Sparsity::Kind::Banded: {
      const int l = lower(), u = upper();
      const long ld = band_.rows();
      const Scalar* a = band_.data();
      const Scalar* xp = x.data();
      for (int i = 0; i < n_; ++i) {
        const int lo = std::max(0, i - l), hi = std::min(n_ - 1, i + u);
        Scalar sum(0);
        for (int j = lo; j <= hi; ++j) sum += a[(ld - 1) * j + (l + u + i)] * xp[j];
        y[i] += sum;
      }
      break;
    }
  }
}

template <typename Scalar>
typename StructuredMatrix<Scalar>::DenseType StructuredMatrix<Scalar>::to_dense() const {
  if (kind() == Sparsity::Kind::Sparse) return DenseType(sparse_);
  DenseType d(n_, n_);
  for (int j = 0; j < n_; ++j)
    for (int i = 0; i < n_; ++i) d(i, j) = at(i, j);
  return d;
}

template <typename Scalar>
void StructuredMatrix<Scalar>::assign_scaled(const StructuredMatrix<double>& J, double c) {
  if (kind() == Sparsity::Kind::Dense && J.kind() == Sparsity::Kind::Dense) {
    if (dense_.rows() == J.dense().rows() && dense_.cols() == J.dense().cols()) {  // no resize
      const double* j = J.dense().data();
      Scalar* e = dense_.data();
      for (Eigen::Index k = 0; k < dense_.size(); ++k) e[k] = Scalar(c * j[k]);
      return;
    }
    dense_ = (c * J.dense()).template cast<Scalar>();
    return;
  }
  if (kind() == Sparsity::Kind::Banded && J.kind() == Sparsity::Kind::Banded &&
      lower() == J.lower() && upper() == J.upper()) {
    band_ = (c * J.band()).template cast<Scalar>();
    return;
  }
  if (kind() == Sparsity::Kind::Sparse && J.kind() == Sparsity::Kind::Sparse &&
      sparse_.nonZeros() == J.sparse().nonZeros()) {  // same pattern (containment, equal size)
    Eigen::Map<VectorType>(sparse_.valuePtr(), sparse_.nonZeros()) =
        (c * Eigen::Map<const Vector>(J.sparse().valuePtr(), J.sparse().nonZeros()))
            .template cast<Scalar>();
    return;
  }
  set_zero();
  add_scaled(J, Scalar(c));
}

template <typename Scalar>
void StructuredMatrix<Scalar>::add_scaled(const StructuredMatrix<double>& A, Scalar s) {
  switch (A.kind()) {
    case Sparsity::Kind::Dense:
      if (kind() == Sparsity::Kind::Dense) {
        dense_ += s * A.dense().template cast<Scalar>();
        return;
      }
      for (int j = 0; j < n_; ++j)
        for (int i = 0; i < n_; ++i)
          if (A.dense()(i, j) != 0.0) ref(i, j) += s * A.dense()(i, j);
      return;
    case Sparsity::Kind::Banded: {
      const int l = A.lower(), u = A.upper();
      const long ld = A.band().rows();
      for (int j = 0; j < n_; ++j) {
        const int lo = std::max(0, j - u), hi = std::min(n_ - 1, j + l);
        const double* col = A.band().data() + j * ld + (l + u - j);  // col[i] = A(i, j)
        if (kind() == Sparsity::Kind::Dense) {
          Scalar* out = dense_.data() + static_cast<long>(j) * n_;
          for (int i = lo; i <= hi; ++i) out[i] += s * col[i];
        } else if (kind() == Sparsity::Kind::Banded) {
          Scalar* out = band_.data() + j * band_.rows() + (lower() + upper() - j);
          for (int i = lo; i <= hi; ++i) out[i] += s * col[i];
        } else {
          for (int i = lo; i <= hi; ++i)
            if (col[i] != 0.0) ref(i, j) += s * col[i];
        }
      }
      return;
    }
    case Sparsity::Kind::Sparse:
      for (int j = 0; j < A.sparse().outerSize(); ++j)
        for (typename StructuredMatrix<double>::SparseType::InnerIterator it(A.sparse(), j); it;
             ++it)
          ref(static_cast<int>(it.row()), j) += s * it.value();
      return;
  }
}

template <typename Scalar>
void StructuredMatrix<Scalar>::add_diagonal(const Vector& d, Scalar s) {
  if (kind() == Sparsity::Kind::Dense) {
    Scalar* e = dense_.data();
    const Eigen::Index step = dense_.rows() + 1;
    for (int i = 0; i < n_; ++i)
      if (d[i] != 0.0) e[i * step] += s * d[i];
    return;
  }
  for (int i = 0; i < n_; ++i)
    if (d[i] != 0.0) ref(i, i) += s * d[i];
}

template <typename Scalar>
void StructuredMatrix<Scalar>::add_identity(Scalar s) {
  if (kind() == Sparsity::Kind::Dense) {
    dense_.diagonal().array() += s;
    return;
  }
  for (int i = 0; i < n_; ++i) ref(i, i) += s;
}

template <typename Scalar>
bool StructuredMatrix<Scalar>::assign_shifted_negative(const StructuredMatrix<double>& J,
                                                       const Vector& d, Scalar s) {
  if (kind() != Sparsity::Kind::Dense || J.kind() != Sparsity::Kind::Dense ||
      J.dense().rows() != n_ || dense_.rows() != n_ || dense_.cols() != n_)
    return false;
  const double* j = J.dense().data();
  Scalar* e = dense_.data();
  const long n = n_, size = n * n;
  for (long k = 0; k < size; ++k) e[k] = Scalar(-j[k]);
  for (long i = 0; i < n; ++i)
    if (d[i] != 0.0) e[i * (n + 1)] += s * d[i];
  return true;
}

template class StructuredMatrix<double>;
template class StructuredMatrix<std::complex<double>>;

}  // namespace daekit
