// The dense LU and QR instantiations declared in core/dense_spectra.hpp (extern there), compiled
// once here instead of in every translation unit that factors a small dense matrix.
#include "core/dense_spectra.hpp"

template class Eigen::FullPivLU<daekit::Matrix>;
template class Eigen::FullPivLU<daekit::ComplexMatrix>;
template class Eigen::PartialPivLU<daekit::Matrix>;
template class Eigen::ColPivHouseholderQR<daekit::Matrix>;
template class Eigen::CompleteOrthogonalDecomposition<daekit::Matrix>;
