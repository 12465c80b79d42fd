// Copyright spate authors.
#include "spate/compute/approx_count_distinct.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "spate/compute/coercion.h"
#include "spate/compute/hash_functions.h"
#include "spate/compute/kernel_columns.h"

namespace spate {

namespace {

// Spark's HyperLogLogPlusPlusHelper.THRESHOLDS (p = 4 .. 18).
constexpr double kThresholds[] = {10,   20,   40,    80,    220,   400,    900,   1800,
                                  3100, 6500, 15500, 20000, 50000, 120000, 350000};
constexpr int kNeighbours = 6;  // K

// Spark's empirical raw estimates and their biases for p = 9 (the default precision),
// from the HLL++ paper's appendix as tabulated in HyperLogLogPlusPlusHelper.
constexpr double kRawEstimates9[] = {
    369,       374.8294,  381.2452,  387.6698,  394.1464,  400.2024,  406.8782,
    413.6598,  420.462,   427.2826,  433.7102,  440.7416,  447.9366,  455.1046,
    462.285,   469.0668,  476.306,   483.8448,  491.301,   498.9886,  506.2422,
    513.8138,  521.7074,  529.7428,  537.8402,  545.1664,  553.3534,  561.594,
    569.6886,  577.7876,  585.65,    594.228,   602.8036,  611.1666,  620.0818,
    628.0824,  637.2574,  646.302,   655.1644,  664.0056,  672.3802,  681.7192,
    690.5234,  700.2084,  708.831,   718.485,   728.1112,  737.4764,  746.76,
    756.3368,  766.5538,  775.5058,  785.2646,  795.5902,  804.3818,  814.8998,
    824.9532,  835.2062,  845.2798,  854.4728,  864.9582,  875.3292,  886.171,
    896.781,   906.5716,  916.7048,  927.5322,  937.875,   949.3972,  958.3464,
    969.7274,  980.2834,  992.1444,  1003.4264, 1013.0166, 1024.018,  1035.0438,
    1046.34,   1057.6856, 1068.9836, 1079.0312, 1091.677,  1102.3188, 1113.4846,
    1124.4424, 1135.739,  1147.1488, 1158.9202, 1169.406,  1181.5342, 1193.2834,
    1203.8954, 1216.3286, 1226.2146, 1239.6684, 1251.9946, 1262.123,  1275.4338,
    1285.7378, 1296.076,  1308.9692, 1320.4964, 1333.0998, 1343.9864, 1357.7754,
    1368.3208, 1380.4838, 1392.7388, 1406.0758, 1416.9098, 1428.9728, 1440.9228,
    1453.9292, 1462.617,  1476.05,   1490.2996, 1500.6128, 1513.7392, 1524.5174,
    1536.6322, 1548.2584, 1562.3766, 1572.423,  1587.1232, 1596.5164, 1610.5938,
    1622.5972, 1633.1222, 1647.7674, 1658.5044, 1671.57,   1683.7044, 1695.4142,
    1708.7102, 1720.6094, 1732.6522, 1747.841,  1756.4072, 1769.9786, 1782.3276,
    1797.5216, 1808.3186, 1819.0694, 1834.354,  1844.575,  1856.2808, 1871.1288,
    1880.7852, 1893.9622, 1906.3418, 1920.6548, 1932.9302, 1945.8584, 1955.473,
    1968.8248, 1980.6446, 1995.9598, 2008.349,  2019.8556, 2033.0334, 2044.0206,
    2059.3956, 2069.9174, 2082.6084, 2093.7036, 2106.6108, 2118.9124, 2132.301,
    2144.7628, 2159.8422, 2171.0212, 2183.101,  2193.5112, 2208.052,  2221.3194,
    2233.3282, 2247.295,  2257.7222, 2273.342,  2286.5638, 2299.6786, 2310.8114,
    2322.3312, 2335.516,  2349.874,  2363.5968, 2373.865,  2387.1918, 2401.8328,
    2414.8496, 2424.544,  2436.7592, 2447.1682, 2464.1958, 2474.3438, 2489.0006,
    2497.4526, 2513.6586, 2527.19,   2540.7028, 2553.768};
constexpr double kBias9[] = {368,
                             361.8294,
                             355.2452,
                             348.6698,
                             342.1464,
                             336.2024,
                             329.8782,
                             323.6598,
                             317.462,
                             311.2826,
                             305.7102,
                             299.7416,
                             293.9366,
                             288.1046,
                             282.285,
                             277.0668,
                             271.306,
                             265.8448,
                             260.301,
                             254.9886,
                             250.2422,
                             244.8138,
                             239.7074,
                             234.7428,
                             229.8402,
                             225.1664,
                             220.3534,
                             215.594,
                             210.6886,
                             205.7876,
                             201.65,
                             197.228,
                             192.8036,
                             188.1666,
                             184.0818,
                             180.0824,
                             176.2574,
                             172.302,
                             168.1644,
                             164.0056,
                             160.3802,
                             156.7192,
                             152.5234,
                             149.2084,
                             145.831,
                             142.485,
                             139.1112,
                             135.4764,
                             131.76,
                             129.3368,
                             126.5538,
                             122.5058,
                             119.2646,
                             116.5902,
                             113.3818,
                             110.8998,
                             107.9532,
                             105.2062,
                             102.2798,
                             99.4728,
                             96.9582,
                             94.3292,
                             92.171,
                             89.7809999999999,
                             87.5716,
                             84.7048,
                             82.5322,
                             79.875,
                             78.3972,
                             75.3464,
                             73.7274,
                             71.2834,
                             70.1444,
                             68.4263999999999,
                             66.0166,
                             64.018,
                             62.0437999999999,
                             60.3399999999999,
                             58.6856,
                             57.9836,
                             55.0311999999999,
                             54.6769999999999,
                             52.3188,
                             51.4846,
                             49.4423999999999,
                             47.739,
                             46.1487999999999,
                             44.9202,
                             43.4059999999999,
                             42.5342000000001,
                             41.2834,
                             38.8954000000001,
                             38.3286000000001,
                             36.2146,
                             36.6684,
                             35.9946,
                             33.123,
                             33.4338,
                             31.7378000000001,
                             29.076,
                             28.9692,
                             27.4964,
                             27.0998,
                             25.9864,
                             26.7754,
                             24.3208,
                             23.4838,
                             22.7388000000001,
                             24.0758000000001,
                             21.9097999999999,
                             20.9728,
                             19.9228000000001,
                             19.9292,
                             16.617,
                             17.05,
                             18.2996000000001,
                             15.6128000000001,
                             15.7392,
                             14.5174,
                             13.6322,
                             12.2583999999999,
                             13.3766000000001,
                             11.423,
                             13.1232,
                             9.51639999999998,
                             10.5938000000001,
                             9.59719999999993,
                             8.12220000000002,
                             9.76739999999995,
                             7.50440000000003,
                             7.56999999999994,
                             6.70440000000008,
                             6.41419999999994,
                             6.71019999999999,
                             5.60940000000005,
                             4.65219999999999,
                             6.84099999999989,
                             3.4072000000001,
                             3.97859999999991,
                             3.32760000000007,
                             5.52160000000003,
                             3.31860000000006,
                             2.06940000000009,
                             4.35400000000004,
                             1.57500000000005,
                             0.280799999999999,
                             2.12879999999996,
                             -0.214799999999968,
                             -0.0378000000000611,
                             -0.658200000000079,
                             0.654800000000023,
                             -0.0697999999999865,
                             0.858400000000074,
                             -2.52700000000004,
                             -2.1751999999999,
                             -3.35539999999992,
                             -1.04019999999991,
                             -0.651000000000067,
                             -2.14439999999991,
                             -1.96659999999997,
                             -3.97939999999994,
                             -0.604400000000169,
                             -3.08260000000018,
                             -3.39159999999993,
                             -5.29640000000018,
                             -5.38920000000007,
                             -5.08759999999984,
                             -4.69900000000007,
                             -5.23720000000003,
                             -3.15779999999995,
                             -4.97879999999986,
                             -4.89899999999989,
                             -7.48880000000008,
                             -5.94799999999987,
                             -5.68060000000014,
                             -6.67180000000008,
                             -4.70499999999993,
                             -7.27779999999984,
                             -4.6579999999999,
                             -4.4362000000001,
                             -4.32139999999981,
                             -5.18859999999995,
                             -6.66879999999992,
                             -6.48399999999992,
                             -5.1260000000002,
                             -4.4032000000002,
                             -6.13500000000022,
                             -5.80819999999994,
                             -4.16719999999987,
                             -4.15039999999999,
                             -7.45600000000013,
                             -7.24080000000004,
                             -9.83179999999993,
                             -5.80420000000004,
                             -8.6561999999999,
                             -6.99940000000015,
                             -10.5473999999999,
                             -7.34139999999979,
                             -6.80999999999995,
                             -6.29719999999998,
                             -6.23199999999997};

double EstimateBias(double e, const double* estimates, const double* biases, int n) {
  int nearest =
      static_cast<int>(std::lower_bound(estimates, estimates + n, e) - estimates);
  auto distance = [&](int i) {
    double d = e - estimates[i];
    return d * d;
  };
  int low = std::max(nearest - kNeighbours + 1, 0);
  int high = std::min(low + kNeighbours, n);
  while (high < n && distance(high) < distance(low)) {
    ++low;
    ++high;
  }
  double sum = 0;
  for (int i = low; i < high; ++i) sum += biases[i];
  return sum / (high - low);
}

class HllAcc final : public GroupedAccumulator {
 public:
  explicit HllAcc(int p) : p_(p), m_(int64_t{1} << p) {}
  void Resize(int64_t g) override { regs_.resize(static_cast<size_t>(g * m_), 0); }
  Status Update(const std::vector<ColumnPtr>& args, const uint32_t* gid, int64_t n,
                const EvalContext&) override {
    const Column& c = *args[0];
    if (c.type_id() == TypeId::kNull || n == 0) return Status::OK();
    hashes_.assign(static_cast<size_t>(n), 42);
    XxHash64Column(c, hashes_.data(), n);
    const int shift = 64 - p_;
    const uint64_t padding = uint64_t{1} << (p_ - 1);
    const bool nulls = c.null_count() > 0;
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && c.IsNull(i)) continue;
      uint64_t x = static_cast<uint64_t>(hashes_[i]);
      uint64_t idx = x >> shift;
      uint8_t pw = static_cast<uint8_t>(__builtin_clzll((x << p_) | padding) + 1);
      uint8_t& r = regs_[static_cast<size_t>(gid[i] * m_ + static_cast<int64_t>(idx))];
      if (pw > r) r = pw;
    }
    return Status::OK();
  }
  Status Merge(const std::vector<ColumnPtr>& st, const uint32_t* gid, int64_t n,
               const EvalContext&) override {
    const Column& c = *st[0];
    for (int64_t i = 0; i < n; ++i) {
      if (c.IsNull(i)) continue;
      std::string_view v = c.GetView(i);
      if (static_cast<int64_t>(v.size()) != m_)
        return Status::Internal("HLL++ state of the wrong size");
      uint8_t* r = &regs_[static_cast<size_t>(gid[i] * m_)];
      for (int64_t k = 0; k < m_; ++k) r[k] = std::max(r[k], static_cast<uint8_t>(v[k]));
    }
    return Status::OK();
  }
  std::vector<ColumnPtr> State() override {
    int64_t g = static_cast<int64_t>(regs_.size()) / m_;
    StringBuilder b(DataType::Binary(), g, g * m_);
    for (int64_t i = 0; i < g; ++i) {
      b.Append(std::string_view(
          reinterpret_cast<const char*>(&regs_[static_cast<size_t>(i * m_)]),
          static_cast<size_t>(m_)));
    }
    return {b.Finish()};
  }
  Result<ColumnPtr> Finalize(const EvalContext&) override {
    int64_t g = static_cast<int64_t>(regs_.size()) / m_;
    kernel::Out<int64_t> out(g);
    for (int64_t i = 0; i < g; ++i)
      out.data[i] = HllEstimate(&regs_[static_cast<size_t>(i * m_)], p_);
    return kernel::MakeColumn(DataType::Long(), g, 0, nullptr, out.buf);
  }

 private:
  int p_;
  int64_t m_;
  std::vector<uint8_t> regs_;
  std::vector<int64_t> hashes_;
};

class HllFn final : public AggregateFunction {
 public:
  explicit HllFn(int p) : p_(p) {
    name_ = "approx_count_distinct";
    result_type_ = DataType::Long();
    nullable_ = false;
    state_fields_ = {Field{"registers", DataType::Binary(), false}};
  }
  std::unique_ptr<GroupedAccumulator> MakeAccumulator() const override {
    return std::make_unique<HllAcc>(p_);
  }

 private:
  int p_;
};

}  // namespace

int HllPrecision(double relative_sd) {
  return static_cast<int>(std::ceil(2.0 * std::log(1.106 / relative_sd) / std::log(2.0)));
}

int64_t HllEstimate(const uint8_t* registers, int p) {
  const int m = 1 << p;
  double z_inverse = 0;
  double v = 0;
  for (int i = 0; i < m; ++i) {
    z_inverse += 1.0 / static_cast<double>(int64_t{1} << registers[i]);
    if (registers[i] == 0) v += 1.0;
  }
  double alpha_m2 = p == 4   ? 0.673 * m * m
                    : p == 5 ? 0.697 * m * m
                    : p == 6 ? 0.709 * m * m
                             : (0.7213 / (1.0 + 1.079 / m)) * m * m;
  double e = alpha_m2 / z_inverse;
  auto bias_corrected = [&]() {
    // Spark corrects with its tables for every p < 19; spate carries the p = 9 table
    // (relativeSD 0.05, the default), other precisions use the raw estimate.
    if (p == 9 && e < 5.0 * m) {
      return e - EstimateBias(e, kRawEstimates9, kBias9,
                              static_cast<int>(std::size(kRawEstimates9)));
    }
    return e;
  };
  double estimate;
  if (v > 0) {
    double h = m * std::log(m / v);
    estimate =
        ((p < 19 && h <= kThresholds[p - 4]) || e <= 2.5 * m) ? h : bias_corrected();
  } else {
    estimate = bias_corrected();
  }
  return static_cast<int64_t>(std::floor(estimate + 0.5));  // Math.round
}

Result<AggregateFunctionPtr> MakeApproxCountDistinct(
    const std::vector<BoundExprPtr>& args) {
  if (args.empty() || args.size() > 2) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`approx_count_distinct`"},
                          {"expectedNum", "[1, 2]"},
                          {"actualNum", std::to_string(args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  double rsd = 0.05;
  if (args.size() == 2) {
    const Value* v = args[1]->literal_value();
    if (!v || v->is_null() ||
        (v->type()->id() != TypeId::kDouble && v->type()->id() != TypeId::kDecimal)) {
      return Status::Error("_LEGACY_ERROR_TEMP_1104");
    }
    rsd = v->type()->id() == TypeId::kDouble
              ? v->f64()
              : static_cast<double>(v->i128()) / std::pow(10.0, v->type()->scale());
  }
  int p = HllPrecision(rsd);
  if (!(p >= 4)) {
    // Spark: FAILED_FUNCTION_CALL, whose cause is HyperLogLogPlusPlusHelper's require().
    return Status::Error("FAILED_FUNCTION_CALL",
                         {{"funcName", "`approx_count_distinct`"}});
  }
  if (p > 18)
    p = std::min(p, 30);  // beyond Spark's tables: plain HLL (as Spark for p >= 19)
  return AggregateFunctionPtr(std::make_shared<HllFn>(p));
}

}  // namespace spate
