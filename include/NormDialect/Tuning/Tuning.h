//===- Tuning.h - launch and split decisions for norm kernels ---*- C++ -*-===//
//
// Every tuning decision of the compiler, as functions of shapes, element
// sizes and device properties (never of IR), so unit tests and the autotuner
// can call them directly. This header gathers the topic headers below; a
// file that needs one topic may include it alone.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_TUNING_H
#define NORMDIALECT_TUNING_TUNING_H

#include "NormDialect/Tuning/ClusterLayouts.h"
#include "NormDialect/Tuning/CombineLayouts.h"
#include "NormDialect/Tuning/DeviceInfo.h"
#include "NormDialect/Tuning/KernelPlan.h"
#include "NormDialect/Tuning/KernelShape.h"
#include "NormDialect/Tuning/RowLayouts.h"
#include "NormDialect/Tuning/ShortRows.h"
#include "NormDialect/Tuning/Splits.h"
#include "NormDialect/Tuning/Staging.h"
#include "NormDialect/Tuning/TuningTable.h"

#endif // NORMDIALECT_TUNING_TUNING_H
