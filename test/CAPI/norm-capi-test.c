/*===- norm-capi-test.c - the norm C API from C --------------------------===*/
// RUN: norm-capi-test 2>/dev/null | FileCheck %s

#include "NormDialect-c/Norm.h"

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

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
  // CHECK: version: norm
  printf("version: %s\n", mlirNormCompilerVersion());
  return 0;
}
