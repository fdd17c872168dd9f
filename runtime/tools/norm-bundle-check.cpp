//===- norm-bundle-check.cpp - check a bundle without a GPU ---------------===//
//
// Loads a kernel bundle with the C++ runtime and settles, for each function
// and each row count M given (default: 0, 1, 4097, 65536), every buffer's
// size and every launch the call would make (conditions, grids, size
// parameters, CUDA's grid limits): what the launcher does before it touches
// the driver. Exit 0 when all of it is well defined, 1 with the first
// problem otherwise, and 2 for bad arguments. Needs no GPU and no driver:
//
//   norm-bundle-check .out/bundles/rms_fwd_bf16_4096 1 4097
//
//===----------------------------------------------------------------------===//

#include "NormRuntime/Bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace norm::runtime;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: norm-bundle-check <bundle directory> [M ...]\n");
    return 2;
  }
  std::vector<int64_t> rows;
  for (int i = 2; i < argc; ++i) {
    char *end = nullptr;
    errno = 0;
    long long m = std::strtoll(argv[i], &end, 10);
    if (errno || end == argv[i] || *end || m < 0) {
      std::fprintf(stderr,
                   "norm-bundle-check: rows must be a whole number >= 0, got "
                   "'%s'\n",
                   argv[i]);
      return 2;
    }
    rows.push_back(m);
  }
  if (rows.empty())
    rows = {0, 1, 4097, 65536};

  std::string error;
  std::unique_ptr<Bundle> bundle = Bundle::load(argv[1], error);
  if (!bundle) {
    std::fprintf(stderr, "norm-bundle-check: %s\n", error.c_str());
    return 1;
  }
  for (const std::string &name : bundle->functionNames()) {
    const Function *function = bundle->function(name, error);
    for (int64_t m : rows) {
      int64_t total = 0;
      for (const BufferDesc &buffer : function->buffers) {
        int64_t bytes = 0;
        if (!function->bufferBytes(buffer, m, bytes, error)) {
          std::fprintf(stderr, "norm-bundle-check: %s: %s\n", name.c_str(),
                       error.c_str());
          return 1;
        }
        total += bytes;
      }
      std::vector<PlannedLaunch> launches;
      if (!function->planLaunches(m, launches, error)) {
        std::fprintf(stderr, "norm-bundle-check: %s: %s\n", name.c_str(),
                     error.c_str());
        return 1;
      }
      std::printf("%s at M = %lld: %zu launches", name.c_str(),
                  static_cast<long long>(m), launches.size());
      for (const PlannedLaunch &launch : launches)
        std::printf(" %s<%lld x %lld, %lld>", launch.launch->kernel.c_str(),
                    static_cast<long long>(launch.grid),
                    static_cast<long long>(launch.gridY),
                    static_cast<long long>(launch.launch->block));
      std::printf(", %lld bytes of outputs and workspaces\n",
                  static_cast<long long>(total));
    }
  }
  return 0;
}
