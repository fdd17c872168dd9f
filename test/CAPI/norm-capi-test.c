/*===- norm-capi-test.c - the norm C API from C --------------------------===*/
// RUN: norm-capi-test 2>/dev/null | FileCheck %s

#include "NormDialect-c/Norm.h"

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static const char *kProgram =
    "func.func @rms(%x: tensor<?x512xbf16>, %w: tensor<512xbf16>)\n"
    "    -> (tensor<?x512xbf16>, tensor<?xf32>) {\n"
    "  %y, %r = norm.rms_norm %x weight(%w : tensor<512xbf16>)\n"
    "      {epsilon = 1.0e-6 : f64}\n"
    "      : tensor<?x512xbf16> -> tensor<?x512xbf16>, tensor<?xf32>\n"
    "  return %y, %r : tensor<?x512xbf16>, tensor<?xf32>\n"
    "}\n";

/* The same forward on memrefs, as the CPU path runs it. */
static const char *kCpuProgram =
    "func.func @rms(%x_m: memref<?x4xf32>, %y_m: memref<?x4xf32>,\n"
    "               %r_m: memref<?xf32>) {\n"
    "  %x = bufferization.to_tensor %x_m restrict\n"
    "      : memref<?x4xf32> to tensor<?x4xf32>\n"
    "  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64}\n"
    "      : tensor<?x4xf32> -> tensor<?x4xf32>, tensor<?xf32>\n"
    "  bufferization.materialize_in_destination %y in restrict writable %y_m\n"
    "      : (tensor<?x4xf32>, memref<?x4xf32>) -> ()\n"
    "  bufferization.materialize_in_destination %r in restrict writable %r_m\n"
    "      : (tensor<?xf32>, memref<?xf32>) -> ()\n"
    "  return\n"
    "}\n";

/* Memref descriptors as the C interface takes them. */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref2D;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} Memref1D;

/* Runs the CPU program on `rows` rows of y and r (x has 2) and prints the
   outcome. */
static void runCpu(MlirNormCpuProgram program, int64_t rows, intptr_t numArgs) {
  float x[8] = {2, 2, 2, 2, 3, 3, 3, 3}, y[8] = {0}, r[2] = {0};
  Memref2D mx = {x, x, 0, {2, 4}, {4, 1}};
  Memref2D my = {y, y, 0, {rows, 4}, {4, 1}};
  Memref1D mr = {r, r, 0, {rows}, {1}};
  void *descriptors[3] = {&mx, &my, &mr};
  char *error = NULL;
  bool ok = mlirNormCpuProgramRun(program, "rms", descriptors, numArgs, &error);
  printf("ran: %d y=%g r=%g%s%s\n", ok, y[7], r[0], error ? " error: " : "",
         error ? error : "");
  mlirNormStringDestroy(error);
}

int main(void) {
  /* The dialect through its handle, parsed and printed by the upstream C API. */
  MlirContext ctx = mlirContextCreate();
  MlirDialectHandle handle = mlirGetDialectHandle__norm__();
  mlirDialectHandleRegisterDialect(handle, ctx);
  mlirDialectHandleLoadDialect(handle, ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__tensor__(), ctx);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kProgram));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  // CHECK: norm.rms_norm
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);

  /* One call from IR text to a bundle. */
  MlirNormBundle bundle;
  // CHECK: compiled: 1
  printf("compiled: %d\n", mlirNormCompile(kProgram, "rms.mlir",
                                           "chip=sm_90 num-stages=2", &bundle));
  // CHECK: ptx has entry: 1
  printf("ptx has entry: %d\n", strstr(bundle.ptx, ".entry norm_fused") != NULL);
  // CHECK: manifest names function: 1
  printf("manifest names function: %d\n",
         strstr(bundle.manifest, "\"function\": \"rms\"") != NULL);
  mlirNormBundleDestroy(&bundle);

  /* Errors come back as located diagnostics, not crashes. */
  // CHECK: compiled: 0
  printf("compiled: %d\n",
         mlirNormCompile("func.func @f() { norm.bogus }", "bad.mlir", NULL,
                         &bundle));
  // CHECK: bad.mlir:1:{{[0-9]+}}: error:
  printf("%s\n", bundle.diagnostics);
  mlirNormBundleDestroy(&bundle);
  // CHECK: compiled: 0
  printf("compiled: %d\n", mlirNormCompile(kProgram, "rms.mlir",
                                           "split-size=banana", &bundle));
  // CHECK: invalid norm-to-ptx options 'split-size=banana'
  printf("%s\n", bundle.diagnostics);
  mlirNormBundleDestroy(&bundle);
  /* The CPU path: descriptors are checked against the program before the
     call, since compiled code reads them blindly. */
  MlirNormCpuProgram program;
  char *diagnostics = NULL;
  // CHECK: cpu created: 1
  printf("cpu created: %d\n", mlirNormCpuProgramCreate(kCpuProgram, "cpu.mlir",
                                                       &program, &diagnostics));
  char *types = NULL, *error = NULL;
  // CHECK: types: 1 memref<?x4xf32>
  // CHECK-NEXT: memref<?x4xf32>
  // CHECK-NEXT: memref<?xf32>
  bool typed = mlirNormCpuProgramArgumentTypes(program, "rms", &types, &error);
  printf("types: %d %s", typed, types);
  mlirNormStringDestroy(types);
  // CHECK: ran: 1 y=1 r=0.5{{$}}
  runCpu(program, 2, 3);
  // CHECK: ran: 0 y=0 r=0 error: @rms takes 3 memref arguments, got 2
  runCpu(program, 2, 2);
  // CHECK: ran: 0 y=0 r=0 error: @rms: argument #1 (memref<?x4xf32>): dimension
  // 0 is 3 but must equal dimension 0 of argument #0 (memref<?x4xf32>), which
  // is 2
  runCpu(program, 3, 3);
  // CHECK: ran: 0 y=0 r=0 error: mlirNormCpuProgramRun: negative argument count
  // -1
  runCpu(program, 2, -1);
  MlirNormCpuProgram none = {NULL};
  // CHECK: ran: 0 y=0 r=0 error: mlirNormCpuProgramRun: null program
  runCpu(none, 2, 3);
  // CHECK: no types: 0 no public function @nope in the program
  typed = mlirNormCpuProgramArgumentTypes(program, "nope", &types, &error);
  printf("no types: %d %s\n", typed, error);
  mlirNormStringDestroy(error);
  mlirNormCpuProgramDestroy(program);

  // CHECK: version: norm
  printf("version: %s\n", mlirNormCompilerVersion());
  return 0;
}
