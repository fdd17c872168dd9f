//===- TargetDevice.cpp - the planning target of a module -----------------===//

#include "NormDialect/Utils/TargetDevice.h"

#include "NormDialect/IR/NormDialect.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::norm;

DeviceInfo mlir::norm::deviceOf(TargetAttr target) {
  DeviceInfo device;
  if (!target)
    return device;
  device.numSMs = target.getNumSms();
  device.registerBudget = target.getRegisterBudget();
  device.maxClusterSize = target.getMaxClusterSize();
  device.maxThreadsPerBlock = target.getMaxThreadsPerBlock();
  device.sharedMemoryPerBlock = target.getSharedMemoryPerBlock();
  device.sharedMemoryPerSM = target.getSharedMemoryPerSm();
  device.threadsPerSM = target.getThreadsPerSm();
  device.registersPerSM = target.getRegistersPerSm();
  device.computeCapability = target.getComputeCapability();
  return device;
}

DeviceInfo mlir::norm::targetDevice(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  auto *dialect = op->getContext()->getLoadedDialect<NormDialect>();
  if (!module || !dialect)
    return DeviceInfo();
  return deviceOf(dialect->getTargetAttrHelper().getAttr(module));
}
