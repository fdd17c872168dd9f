/*===-- NormDialect-c/Norm.h - C API of the norm dialect ----------*- C -*-===*\
|*                                                                            *|
|* Registration of the norm dialect and passes for C hosts (and language      *|
|* bindings), and a one-call compiler from norm IR text to a kernel bundle.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NORMDIALECT_C_NORM_H
#define NORMDIALECT_C_NORM_H

#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The norm dialect handle: mlirDialectHandleRegisterDialect /
/// mlirDialectHandleLoadDialect take it.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Norm, norm);

/// Registers the dialect, its external interface models (bufferization) and
/// what norm's pipelines need from upstream (registerAllNorm): with the
/// upstream dialects, a registry the norm-to-ptx and norm-to-cpu pipelines
/// run in.
MLIR_CAPI_EXPORTED void mlirNormRegisterAll(MlirDialectRegistry registry);

/// Registers every norm pass and the norm-to-gpu / norm-to-ptx pipelines.
MLIR_CAPI_EXPORTED void mlirNormRegisterPasses(void);

/// A compiled kernel bundle; strings are owned by the bundle.
typedef struct MlirNormBundle {
  char *ptx;         /* PTX text of all kernels                        */
  char *manifest;    /* manifest.json text (docs/bundle.md)            */
  char *diagnostics; /* every diagnostic, located; empty on success    */
} MlirNormBundle;

/// Compiles the norm program `source` (MLIR text, named `sourceName` in
/// diagnostics) with pipeline `options` ("chip=sm_90 split-size=0 ...", the
/// norm-to-ptx options; may be NULL). Returns true on success. The bundle
/// must be released with mlirNormBundleDestroy in every case.
MLIR_CAPI_EXPORTED bool mlirNormCompile(const char *source,
                                        const char *sourceName,
                                        const char *options,
                                        MlirNormBundle *bundle);

/// Frees the strings of `bundle`.
MLIR_CAPI_EXPORTED void mlirNormBundleDestroy(MlirNormBundle *bundle);

/// A norm program compiled for the host CPU (norm-to-cpu + ExecutionEngine).
typedef struct MlirNormCpuProgram {
  void *ptr;
} MlirNormCpuProgram;

/// Compiles `source` for the CPU. On failure returns false and sets
/// `*diagnostics` (release with mlirNormStringDestroy); on success
/// `*program` must be released with mlirNormCpuProgramDestroy.
MLIR_CAPI_EXPORTED bool mlirNormCpuProgramCreate(const char *source,
                                                 const char *sourceName,
                                                 MlirNormCpuProgram *program,
                                                 char **diagnostics);

/// Runs `function` with `numArgs` memref descriptor pointers
/// ({allocated, aligned, offset, sizes[rank], strides[rank]}); false with
/// `*error` (release with mlirNormStringDestroy) when it cannot be called:
/// no such function, or descriptors that do not fit its signature (count,
/// static sizes, the sizes its ops equate, contiguous row-major strides).
/// Descriptors carry no element type: callers check that themselves, with
/// mlirNormCpuProgramArgumentTypes.
MLIR_CAPI_EXPORTED bool mlirNormCpuProgramRun(MlirNormCpuProgram program,
                                              const char *function,
                                              void **descriptors,
                                              intptr_t numArgs, char **error);

/// Sets `*types` to the argument types of `function`, one MLIR type per line
/// ("memref<?x16xbf16>"); false with `*error` when there is no such callable
/// function. Release both strings with mlirNormStringDestroy.
MLIR_CAPI_EXPORTED bool
mlirNormCpuProgramArgumentTypes(MlirNormCpuProgram program,
                                const char *function, char **types,
                                char **error);

MLIR_CAPI_EXPORTED void mlirNormCpuProgramDestroy(MlirNormCpuProgram program);

/// Frees a string returned by this API.
MLIR_CAPI_EXPORTED void mlirNormStringDestroy(char *string);

/// The compiler version (part of cache keys).
MLIR_CAPI_EXPORTED const char *mlirNormCompilerVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* NORMDIALECT_C_NORM_H */
