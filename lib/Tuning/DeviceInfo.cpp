//===- DeviceInfo.cpp - properties of the target GPU ----------------------===//
//
// What DeviceInfo derives from its fields (the clusters the GPU holds at
// once) and the check of its register budget.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/DeviceInfo.h"

#include <algorithm>

using namespace mlir::norm;

int64_t DeviceInfo::residentClusters(int64_t clusterSize) const {
  clusterSize = std::max<int64_t>(1, clusterSize);
  if (numSMs == 132) {
    switch (clusterSize) {
    case 1:
      return 132;
    case 2:
      return 66;
    case 4:
      return 30;
    case 8:
      return 15;
    case 16:
      return 7;
    default:
      break;
    }
  }
  return std::max<int64_t>(1, numSMs * 85 / (100 * clusterSize));
}

std::string mlir::norm::validateRegisterBudget(int64_t budget) {
  if (budget < 1 || budget > kMaxRegisterBudget)
    return "register-budget must be 1 to " +
           std::to_string(kMaxRegisterBudget) + " elements a thread, got " +
           std::to_string(budget);
  return {};
}
