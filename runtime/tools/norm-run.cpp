//===- norm-run.cpp - run a bundle function on random inputs --------------===//
//
// Loads a kernel bundle with the C++ runtime, runs one function on random
// inputs with M rows twice with the same launcher (the second run takes the
// launcher's cached kernels), and checks the outputs: both runs bitwise
// equal (the split reductions are deterministic), every element written and
// finite, and, for RMSNorm/LayerNorm forward bundles, equal to a float64
// reference within the dtype's tolerance. Several row counts, separated by
// commas, run one after another with the same launcher. The smoke test of
// the C++ runtime on a GPU machine, and what bench/sanitize.py runs under
// compute-sanitizer:
//
//   norm-run .out/bundles/rms_fwd_bf16_4096 4097
//   norm-run .out/bundles/rms_bwd_bf16_4096 1,2,300,9362
//
// Several bundle directories separated by commas (one program compiled for
// several chips) run the one for the GPU (bundleForDevice).
//
//===----------------------------------------------------------------------===//

#include "NormRuntime/Bundle.h"
#include "NormRuntime/Launcher.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace norm::runtime;

static uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}
static float fromBF16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
static float fromF16(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp(static_cast<float>(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(static_cast<float>(m | 1024), e - 25);
  return s ? -v : v;
}
static uint16_t toF16(float f) {
  // Only for test inputs (|f| < 100): normal numbers, round to nearest.
  if (f == 0)
    return 0;
  int s = f < 0, e;
  float m = std::frexp(std::fabs(f), &e); // f = m * 2^e, m in [0.5, 1)
  int mant = static_cast<int>(std::lround((m * 2 - 1) * 1024));
  if (mant == 1024) {
    mant = 0;
    ++e;
  }
  return static_cast<uint16_t>((s << 15) | ((e - 1 + 15) << 10) | mant);
}

static float fromF8E4M3FN(uint8_t b) {
  int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  float v = e == 0 ? std::ldexp(static_cast<float>(m), -9)
            : (e == 15 && m == 7)
                ? NAN
                : std::ldexp(static_cast<float>(m | 8), e - 10);
  return s ? -v : v;
}
static uint8_t toF8E4M3FN(float f) {
  // The nearest of the 256 codes (ties to even), saturating at +-448.
  uint8_t best = 0;
  for (int c = 0; c < 256; ++c) {
    float v = fromF8E4M3FN(static_cast<uint8_t>(c)), b = fromF8E4M3FN(best);
    if (std::isnan(v))
      continue;
    float dv = std::fabs(v - f), db = std::fabs(b - f);
    if (dv < db || (dv == db && !(c & 1) && (best & 1)))
      best = static_cast<uint8_t>(c);
  }
  return best;
}

/// A host copy of one tensor, as doubles.
struct Host {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  std::vector<char> encode() const {
    std::vector<char> bytes(count() * dtypeBytes(dtype));
    for (int64_t i = 0; i < count(); ++i) {
      float f = static_cast<float>(values[i]);
      if (dtype == DType::F32) {
        std::memcpy(&bytes[i * 4], &f, 4);
      } else if (dtype == DType::F8E4M3FN) {
        bytes[i] = static_cast<char>(toF8E4M3FN(f));
      } else {
        uint16_t h = dtype == DType::BF16 ? toBF16(f) : toF16(f);
        std::memcpy(&bytes[i * 2], &h, 2);
      }
    }
    return bytes;
  }
  void decode(const std::vector<char> &bytes) {
    values.resize(count());
    for (int64_t i = 0; i < count(); ++i) {
      if (dtype == DType::F32) {
        float f;
        std::memcpy(&f, &bytes[i * 4], 4);
        values[i] = f;
      } else if (dtype == DType::F8E4M3FN) {
        values[i] = fromF8E4M3FN(static_cast<uint8_t>(bytes[i]));
      } else {
        uint16_t h;
        std::memcpy(&h, &bytes[i * 2], 2);
        values[i] = dtype == DType::BF16 ? fromBF16(h) : fromF16(h);
      }
    }
  }
};

static double relError(const std::vector<double> &out,
                       const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(out[i]))
      return INFINITY;
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

/// Runs `f` with `launcher` at M = `rows` twice and checks the outputs; false
/// on a failed check or a runtime error (printed).
static bool runRows(const Function *f, Launcher &launcher, int64_t rows);

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: norm-run <bundle dir>[,<bundle dir>...] "
                         "<rows>[,<rows>...] [function]\n");
    return 2;
  }
  // Rows: whole numbers, at least 0 (0 runs the launches M = 0 keeps).
  std::vector<int64_t> rowCounts;
  std::string list = argv[2];
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    char *end = nullptr;
    errno = 0;
    long long parsed = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno == ERANGE || parsed < 0) {
      std::fprintf(stderr,
                   "norm-run: rows must be a whole number >= 0, got '%s'\n",
                   item.c_str());
      return 2;
    }
    rowCounts.push_back(parsed);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  std::string error;
  std::vector<std::unique_ptr<Bundle>> loaded;
  std::vector<const Bundle *> bundles;
  std::string dirs = argv[1];
  for (size_t start = 0; start <= dirs.size();) {
    size_t comma = dirs.find(',', start);
    auto bundle = Bundle::load(dirs.substr(start, comma == std::string::npos
                                                      ? std::string::npos
                                                      : comma - start),
                               error);
    if (!bundle) {
      std::fprintf(stderr, "norm-run: %s\n", error.c_str());
      return 1;
    }
    bundles.push_back(bundle.get());
    loaded.push_back(std::move(bundle));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  const char *name = argc > 3 ? argv[3] : "";
  for (const Bundle *bundle : bundles)
    if (!bundle->function(name, error)) {
      std::fprintf(stderr, "norm-run: %s\n", error.c_str());
      return 1;
    }
  if (!cudaAvailable() || !device::useDevice(0, error)) {
    std::printf("norm-run: skipped, no CUDA driver or device %s\n",
                error.c_str());
    return 0;
  }
  const Bundle *bundle = bundleForDevice(bundles, error);
  if (!bundle) {
    std::fprintf(stderr, "norm-run: %s\n", error.c_str());
    return 1;
  }
  if (bundles.size() > 1)
    std::printf("norm-run: the %s bundle\n", bundle->target().c_str());
  const Function *f = bundle->function(name, error);
  Launcher launcher(*bundle);
  bool ok = true;
  for (int64_t rows : rowCounts)
    ok &= runRows(f, launcher, rows);
  std::printf("%s\n", ok ? "norm-run: ok" : "norm-run: FAILED");
  return ok ? 0 : 1;
}

static bool runRows(const Function *f, Launcher &launcher, int64_t rows) {
  std::string error;
  std::mt19937 rng(42);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Host> hosts;
  std::vector<TensorRef> args;
  for (const BufferDesc &a : f->arguments) {
    Host h{a.dtype, f->shapeOf(a, rows), {}};
    h.values.resize(h.count());
    // Per-row statistics (rank 1, "M" long) must be positive (rstd).
    bool stats = h.shape.size() == 1 && a.shape[0].isString();
    for (double &v : h.values)
      v = stats ? 0.5 + std::fabs(normal(rng)) : normal(rng);
    std::vector<char> bytes = h.encode();
    h.decode(bytes); // the reference sees the rounded inputs
    TensorRef t{nullptr, a.dtype, h.shape};
    if (!bytes.empty() &&
        (!device::allocate(&t.data, bytes.size(), error) ||
         !device::copyToDevice(t.data, bytes.data(), bytes.size(), error))) {
      std::fprintf(stderr, "norm-run: %s\n", error.c_str());
      return false;
    }
    hosts.push_back(h);
    args.push_back(t);
  }
  std::vector<Host> outs;
  std::vector<std::vector<char>> firstRun;
  bool ok = true;
  for (int run = 0; run < 2; ++run) {
    std::vector<TensorRef> results;
    if (!launcher.run(f->name, args, results, nullptr, error) ||
        !device::synchronize(error)) {
      std::fprintf(stderr, "norm-run: M=%lld: %s\n",
                   static_cast<long long>(rows), error.c_str());
      return false;
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const TensorRef &r = results[k];
      Host h{r.dtype, r.shape, {}};
      std::vector<char> bytes(h.count() * dtypeBytes(r.dtype));
      if (!bytes.empty() &&
          !device::copyToHost(bytes.data(), r.data, bytes.size(), error)) {
        std::fprintf(stderr, "norm-run: %s\n", error.c_str());
        return false;
      }
      device::release(r.data, error);
      if (run == 0) {
        h.decode(bytes);
        outs.push_back(h);
        firstRun.push_back(std::move(bytes));
      } else if (bytes != firstRun[k]) {
        std::printf("M=%lld: result %zu differs between two runs\n",
                    static_cast<long long>(rows), k);
        ok = false;
      }
    }
  }
  for (size_t k = 0; k < outs.size(); ++k)
    for (double v : outs[k].values)
      if (!std::isfinite(v)) {
        std::printf("M=%lld: result %zu has a non-finite element\n",
                    static_cast<long long>(rows), k);
        ok = false;
        break;
      }
  // float64 reference for the forward ops (x [, w [, b]] -> y, stats...).
  bool rms = f->name.rfind("rms_fwd", 0) == 0;
  bool ln = f->name.rfind("ln_fwd", 0) == 0;
  if ((rms || ln) && rows > 0) {
    const Host &x = hosts[0];
    int64_t n = x.shape[1];
    std::vector<double> y(rows * n);
    for (int64_t i = 0; i < rows; ++i) {
      double s = 0, ss = 0;
      for (int64_t j = 0; j < n; ++j) {
        s += x.values[i * n + j];
        ss += x.values[i * n + j] * x.values[i * n + j];
      }
      double mean = ln ? s / n : 0, var = 0;
      for (int64_t j = 0; j < n; ++j)
        var += (x.values[i * n + j] - mean) * (x.values[i * n + j] - mean);
      double rstd = 1 / std::sqrt((rms ? ss : var) / n + 1e-6);
      for (int64_t j = 0; j < n; ++j) {
        double v = (x.values[i * n + j] - mean) * rstd;
        if (hosts.size() > 1)
          v *= hosts[1].values[j];
        if (hosts.size() > 2)
          v += hosts[2].values[j];
        y[i * n + j] = v;
      }
    }
    double err = relError(outs[0].values, y);
    double tol = x.dtype == DType::F32 ? 1e-5 : 1e-2;
    std::printf("%s M=%lld: y relative error %.3g (tolerance %.0g)\n",
                f->name.c_str(), static_cast<long long>(rows), err, tol);
    ok &= err < tol;
  }
  for (TensorRef &t : args)
    if (t.data)
      device::release(t.data, error);
  return ok;
}
