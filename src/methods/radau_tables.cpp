// Tabulated constants of Radau IIA (radau_tables.hpp). Each table lists, column-major where a
// matrix: A, b, c (radau_iia(s)), the eigenvalue blocks of A^{-1} (gamma, alpha, beta) and T,
// T^{-1} (block_diagonalise_inverse), d = b^T A^{-1} and RADAU5's embedded error weights e
// (embedded_error_weights), printed with %a from IrkConstants::make(radau_iia(s)).
#include "methods/radau_tables.hpp"

#include <string>
#include <utility>

#include "daekit/core/types.hpp"

namespace daekit {

namespace {

// s = 1: 1 real, 0 complex eigenvalue blocks of A^{-1}
constexpr double kRadauIIA1[] = {
    /* A (column-major) */
    0x1p+0,
    /* b */
    0x1p+0,
    /* c */
    0x1p+0,
    /* gamma */
    0x1p+0,
    /* alpha */
    /* beta */
    /* T (column-major) */
    0x1p+0,
    /* T^{-1} (column-major) */
    0x1p+0,
    /* d = b^T A^{-1} */
    0x1p+0,
    /* e (embedded error weights) */
    -0x1p+0,
};
// s = 3: 1 real, 1 complex eigenvalue blocks of A^{-1}
constexpr double kRadauIIA3[] = {
    /* A (column-major) */
    0x1.9313fe302d93ep-3,
    0x1.93e3f7b234d44p-2,
    0x1.816fcdf1a6a6ap-2,
    -0x1.0c6edfec18b88p-4,
    0x1.2b154adc888p-2,
    0x1.06648ace491e7p-1,
    0x1.8576b15adbb81p-6,
    -0x1.545e0c7243c26p-5,
    0x1.c71c71c71c71fp-4,
    /* b */
    0x1.816fcdf1a6a6ap-2,
    0x1.06648ace491e7p-1,
    0x1.c71c71c71c71fp-4,
    /* c */
    0x1.3d8b64657caeap-3,
    0x1.4a36c0803a6ep-1,
    0x1p+0,
    /* gamma */
    0x1.d1a48d83e731ap+1,
    /* alpha */
    0x1.572db93e0c673p+1,
    /* beta */
    0x1.86747f2c3fcbfp+1,
    /* T (column-major) */
    0x1.75b01984e660dp-4,
    0x1.ef09cfbeab884p-3,
    0x1.ee9dde0d6255ap-1,
    -0x1.214a74c403cp-3,
    0x1.a20e91e20b557p-3,
    0x1p+0,
    -0x1.ebff91a6d689dp-6,
    0x1.8821fa2a36dfep-2,
    -0x0p+0,
    /* T^{-1} (column-major) */
    0x1.14d64d09039d6p+2,
    -0x1.0b70201a79c3ap+2,
    -0x1.017885a24a807p-1,
    0x1.5b570c75819adp-2,
    -0x1.4f8c15da84e72p-2,
    0x1.4934e6fcaa58ap+1,
    0x1.1562f2bdebf3bp-1,
    0x1.e810014c55226p-2,
    -0x1.312c0cf7bdfcep-1,
    /* d = b^T A^{-1} */
    0x0p+0,
    0x1p-53,
    0x1p+0,
    /* e (embedded error weights) */
    -0x1.418fd8baffe0dp+3,
    0x1.61d41b2d545a5p+0,
    -0x1.555555555557fp-2,
};
// s = 5: 1 real, 2 complex eigenvalue blocks of A^{-1}
constexpr double kRadauIIA5[] = {
    /* A (column-major) */
    0x1.2b00db6e3fa2ep-4,
    0x1.3aee82311a754p-3,
    0x1.1ed95fc4c15b4p-3,
    0x1.28be58d5a7eb8p-3,
    0x1.26534b9cb85e6p-3,
    -0x1.b6081b306829ep-6,
    0x1.2b72b35cc0664p-3,
    0x1.3224706ef9ea8p-2,
    0x1.1b22d582aaa7fp-2,
    0x1.201bca8e66369p-2,
    0x1.3200b8a1aa032p-6,
    -0x1.2a8dccf20f172p-5,
    0x1.5736d75c3ae78p-3,
    0x1.4d9df88005141p-2,
    0x1.3f4f73b8d3278p-2,
    -0x1.a605c5bc79bf5p-7,
    0x1.5be1ebec3e86ep-6,
    -0x1.16465e9a3156ep-5,
    0x1.07b19ee2f3b8ap-3,
    0x1.c8eab2b61c92cp-3,
    0x1.4a7ccd96a885bp-8,
    -0x1.04087814190d3p-7,
    0x1.669f591dfd1f7p-7,
    -0x1.015ff99971639p-6,
    0x1.47ae147ae14abp-5,
    /* b */
    0x1.26534b9cb85bcp-3,
    0x1.201bca8e663a6p-2,
    0x1.3f4f73b8d3227p-2,
    0x1.c8eab2b61c9bdp-3,
    0x1.47ae147ae13b6p-5,
    /* c */
    0x1.d3cc2dd8d6d34p-5,
    0x1.1b7cbc26ceaaep-2,
    0x1.2acc5d7a90e5p-1,
    0x1.b8716522b33bep-1,
    0x1p+0,
    /* gamma */
    0x1.92595ee312382p+2,
    /* alpha */
    0x1.6cdc6b397463dp+2,
    0x1.d3edcaaa0501ep+1,
    /* beta */
    0x1.9ae9fbb266491p+1,
    0x1.a2cc95da184b9p+2,
    /* T (column-major) */
    0x1.9a2d1fb8909f4p-7,
    0x1.87084a134358bp-10,
    0x1.2aef0b4499de2p-4,
    0x1.8536b0c138323p-2,
    0x1.d80da0c71ef1fp-1,
    -0x1.7820c3d05d82cp-7,
    -0x1.f695a1442b2c4p-8,
    0x1.3dd30e1ded205p-6,
    0x1.a1623391d6c91p-2,
    0x1p+0,
    -0x1.cb6719b83f7ap-7,
    0x1.94d34a117184p-6,
    0x1.4f0de33f57622p-4,
    0x1.98f319cae0b36p-3,
    -0x0p+0,
    -0x1.4f9c86360375dp-7,
    0x1.9b041f87f5accp-5,
    -0x1.d8251c793669p-3,
    0x1.82f69e7e11244p-2,
    0x1p+0,
    0x1.868b5dfabb1f6p-5,
    -0x1.826214e5b72a1p-4,
    0x1.a4abf2d1b75e2p-4,
    0x1.ddf22c5d83139p-2,
    -0x0p+0,
    /* T^{-1} (column-major) */
    0x1.e0aa42ea4980cp+4,
    -0x1.0855c54b1b41fp+5,
    -0x1.1390f2f71cbbcp+3,
    0x1.5607268d8eac1p+2,
    0x1.dfc06c7c33c72p+1,
    0x1.bbaef6abc641ep+3,
    -0x1.1608005f0b012p+4,
    0x1.366654626cff7p+3,
    0x1.25fdcc267af32p+2,
    -0x1.fe135b74a3a8cp+1,
    0x1.bd70bb1dddfe2p+1,
    -0x1.608533caef777p-3,
    0x1.ea2ba7f8364b4p+0,
    -0x1.84a7748010a72p+1,
    -0x1.0b5ed2d02309bp+0,
    -0x1.0831ba83d7f82p+0,
    -0x1.96330c92fc5fap-4,
    0x1.3597b31c9da03p+1,
    0x1.0cf810f440ccap+0,
    0x1.2f211571648a2p+0,
    0x1.9bcd9bd554f93p-1,
    0x1.0ffd21b07b7fdp-1,
    -0x1.0c2691306fb91p+0,
    -0x1.175346c405811p-2,
    -0x1.ccb73e72d9a56p-2,
    /* d = b^T A^{-1} */
    -0x1.75cp-44,
    0x1.b48p-45,
    -0x1.14p-45,
    0x1.5p-46,
    0x1.fffffffffffc3p-1,
    /* e (embedded error weights) */
    -0x1.bc7eb4976177cp+4,
    0x1.d21bf7a91a8c8p+1,
    -0x1.40a6f7ab1999cp+0,
    0x1.2f1b0a045f088p-1,
    -0x1.9999999999483p-3,
};
// s = 7: 1 real, 3 complex eigenvalue blocks of A^{-1}
constexpr double kRadauIIA7[] = {
    /* A (column-major) */
    0x1.339439878c085p-5,
    0x1.4848d89e338b3p-4,
    0x1.272c6b9d6def8p-4,
    0x1.361693f89237ep-4,
    0x1.2ebeb545c9af4p-4,
    0x1.31fe759e04ad8p-4,
    0x1.3120de1741c44p-4,
    -0x1.cc0a79638896ap-7,
    0x1.4c07bc1c40327p-4,
    0x1.5e5915f04a537p-3,
    0x1.3b939e87c514p-3,
    0x1.4a74cf0de453p-3,
    0x1.443693ea05ae7p-3,
    0x1.45d7547e67742p-3,
    0x1.533d7e60f7eb3p-7,
    -0x1.5bf69865d5cd3p-6,
    0x1.c0fb337b7a9bep-4,
    0x1.d11ddc6d70809p-3,
    0x1.a7aa0328a471ep-3,
    0x1.b69611ea1290cp-3,
    0x1.b2e58c2545a06p-3,
    -0x1.0b54f840174cdp-7,
    0x1.cac2f480aacb4p-7,
    -0x1.935f39fa183fp-6,
    0x1.e130ceb5143eap-4,
    0x1.e563fc8a86ea7p-3,
    0x1.c24f5110ef28ep-3,
    0x1.c9d728b55a001p-3,
    0x1.a2abccaf98b5fp-8,
    -0x1.4f5a928187627p-7,
    0x1.e3ab04571825fp-7,
    -0x1.861dd8fa6fd74p-6,
    0x1.a63e566e0a3f8p-4,
    0x1.970b5a3507ed7p-3,
    0x1.8617b942de614p-3,
    -0x1.2d9e3b0080396p-8,
    0x1.d4cf3ae0d1bd1p-8,
    -0x1.39c318fadfdd6p-7,
    0x1.a07b16199114fp-7,
    -0x1.34e7fdc3816ebp-6,
    0x1.1bb62482302ebp-4,
    0x1.e9f01a14374f2p-4,
    0x1.df7241f37d2ebp-10,
    -0x1.70a8843d680f9p-9,
    0x1.e162a335799adp-9,
    -0x1.2e0b9375e3e2dp-8,
    0x1.7ff80c13e673p-8,
    -0x1.09f202e4447abp-7,
    0x1.4e5e0a72f0039p-6,
    /* b */
    0x1.3120de1741fe4p-4,
    0x1.45d7547e67215p-3,
    0x1.b2e58c2546163p-3,
    0x1.c9d728b559835p-3,
    0x1.8617b942ded15p-3,
    0x1.e9f01a1436a2ap-4,
    0x1.4e5e0a72f11cap-6,
    /* c */
    0x1.e05201f8c2068p-6,
    0x1.2f43d53682496p-3,
    0x1.591283c00a7e2p-2,
    0x1.1e0a317ca931cp-1,
    0x1.89d90550ca2b2p-1,
    0x1.da989f7ef95fp-1,
    0x1p+0,
    /* gamma */
    0x1.1dfa88c180b97p+3,
    /* alpha */
    0x1.1060f36d5876bp+3,
    0x1.c9070c7855b4ap+2,
    0x1.183c83eb78797p+2,
    /* beta */
    0x1.a3f841231a121p+1,
    0x1.a7dffc0168dacp+2,
    0x1.456e209c07aap+3,
    /* T (column-major) */
    0x1.1a4c036037f4ap-9,
    -0x1.a36fdd8779388p-10,
    0x1.0a04851ce2e8cp-8,
    0x1.020e55cc9a36cp-6,
    0x1.cec1a9f47110fp-4,
    0x1.d561d71653413p-2,
    0x1.c345c1c7ffbdfp-1,
    -0x1.44b423796d429p-10,
    -0x1.179e73af2bf1dp-14,
    -0x1.344e18cac40efp-9,
    0x1.984c7172baf36p-9,
    0x1.a0a2c5e6eb67p-4,
    0x1.0b23122b28d77p-1,
    0x1p+0,
    -0x1.69d6f39767396p-9,
    0x1.a186cc648636dp-9,
    0x1.b528d3f9b5ac8p-12,
    0x1.9b82ad2c27036p-6,
    0x1.854ded613afa5p-4,
    0x1.064a956df5373p-3,
    -0x0p+0,
    -0x1.09c251d1596b3p-8,
    0x1.13c2e74336bbcp-7,
    -0x1.188219b9836b7p-7,
    -0x1.32252ceffc2d2p-5,
    0x1.5fb7509beb37dp-8,
    0x1.0d9b23131c818p-1,
    0x1p+0,
    0x1.2224a3e319276p-8,
    -0x1.083ce38b14ba2p-8,
    -0x1.c5b83bfabfa22p-8,
    0x1.0df9cd7306ffep-7,
    0x1.8bb2450707692p-3,
    0x1.1a25b03d9d37p-2,
    -0x0p+0,
    0x1.615cdded5d044p-6,
    -0x1.385fdcb5c2e32p-5,
    0x1.d631341995c37p-5,
    -0x1.390e05673c136p-5,
    -0x1.fe4f0cac5b0bcp-3,
    0x1.102bdcf5bd95dp-1,
    0x1p+0,
    0x1.1fd1e87d84ecap-7,
    -0x1.60acbeb1dedb3p-6,
    0x1.e21a8149ad898p-5,
    -0x1.536dd2414967fp-3,
    0x1.1820faaf2ab56p-2,
    0x1.f1fe9d1a47ab2p-2,
    -0x0p+0,
    /* T^{-1} (column-major) */
    0x1.0221c5ec5cee2p+8,
    -0x1.2b2fadf365665p+8,
    -0x1.744e56c684735p+6,
    0x1.2ab69cb9b4caep+6,
    0x1.d2da2bcc74e05p+5,
    -0x1.80f2293c17289p+1,
    -0x1.0e248ffbfb28fp+3,
    0x1.7a25c4464b232p+7,
    -0x1.e614dc93b2b27p+7,
    0x1.7e1b292aa8c9bp+4,
    0x1.5da2652647a27p+6,
    -0x1.4233657178cf7p+3,
    -0x1.6081f9942d3d2p+3,
    -0x1.4d11a6126ed91p-1,
    0x1.88b2d21c7a491p+5,
    -0x1.86378257c47e1p+5,
    0x1.3a3b25d213114p+5,
    0x1.018bd116b89a7p+2,
    -0x1.e5dcba8c06066p+4,
    0x1.7ce06cd720384p+0,
    0x1.bc33f301ce94dp+2,
    0x1.0714d91fe2d04p+2,
    -0x1.04f3337533a28p+1,
    0x1.cc71ff4ec2412p+3,
    -0x1.db7ec5f94887p+1,
    -0x1.0520166132fdbp+0,
    0x1.10b08f288a45ap+1,
    -0x1.9a3eff5048ef2p+1,
    0x1.036bb0b22a04cp+2,
    0x1.ac6e71a214d91p+0,
    -0x1.c1560ba403f54p+1,
    -0x1.b70d51da00555p+1,
    -0x1.cc764af9faeb5p-4,
    -0x1.d0ee9f4ccc709p+0,
    0x1.123f77c95c29ep+0,
    -0x1.8e6ec49205179p+1,
    -0x1.165e250231c09p+0,
    0x1.37400f3fa820ep+2,
    0x1.592a58ae1740ep+1,
    0x1.e4010999a15fp+0,
    0x1.2263296705e79p+0,
    -0x1.6b5dfea9c02efp-2,
    0x1.a5930a6d9cf0ap+0,
    0x1.cdcad9a77748p-1,
    -0x1.1f8cbeff4f237p+1,
    -0x1.e09c55d59390bp-1,
    -0x1.f17bee32b5b9bp-1,
    -0x1.a8a6dde0081d3p-2,
    0x1.78c5c74f593f3p-4,
    /* d = b^T A^{-1} */
    0x1.0945p-39,
    -0x1.2f94p-40,
    0x1.7e3cp-41,
    -0x1.ec5p-42,
    0x1.43bp-42,
    -0x1.9f8p-43,
    0x1.000000000013bp+0,
    /* e (embedded error weights) */
    -0x1.b2fed8c53536dp+5,
    0x1.c00064ae5ef03p+2,
    -0x1.2d864d7b442ffp+1,
    0x1.21ddb23c89872p+0,
    -0x1.4b3557090e72cp-1,
    0x1.8cd58d412c6cp-2,
    -0x1.2492492490ed5p-3,
};

// The parts of one table in the order above.
IrkConstants from_table(int s, int real_blocks, int complex_blocks, const double* x) {
  const auto take = [&x](Eigen::Index rows, Eigen::Index cols) {
    Matrix m = Eigen::Map<const Matrix>(x, rows, cols);
    x += rows * cols;
    return m;
  };
  RungeKuttaTableau t;
  t.name = "Radau IIA(" + std::to_string(s) + ")";
  t.A = take(s, s);
  t.b = take(s, 1);
  t.c = take(s, 1);
  t.order = 2 * s - 1;
  t.stage_order = s;
  BlockDiagonalInverse blocks;
  blocks.gamma = take(real_blocks, 1);
  blocks.alpha = take(complex_blocks, 1);
  blocks.beta = take(complex_blocks, 1);
  blocks.T = take(s, s);
  blocks.T_inverse = take(s, s);
  Eigen::RowVectorXd d = take(1, s);
  Vector e = take(s, 1);
  return IrkConstants::from_parts(t, std::move(blocks), std::move(d), std::move(e));
}

}  // namespace

IrkConstants radau_iia_constants(int s) {
  switch (s) {
    case 1:
      return from_table(1, 1, 0, kRadauIIA1);
    case 3:
      return from_table(3, 1, 1, kRadauIIA3);
    case 5:
      return from_table(5, 1, 2, kRadauIIA5);
    case 7:
      return from_table(7, 1, 3, kRadauIIA7);
    default:
      throw InvalidArgument("radau_iia_constants: tables for s = 1, 3, 5, 7 stages, got " +
                            std::to_string(s));
  }
}

}  // namespace daekit
