//===- SanitizerOptions.cpp - defaults of the sanitized runtime tests -----===//
//
// Linked into NormRuntimeSanitizedTests only. Leak checking is off:
// LeakSanitizer needs ptrace, which some CI sandboxes deny (and it runs at
// exit, so it would fail gtest's test discovery at build time too), while
// what these tests are for is out-of-bounds access and undefined behaviour
// on untrusted input.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() { return "detect_leaks=0"; }
