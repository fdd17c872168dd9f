# A GPU call after session 48 (bench/NOTES.md, "after session 48", item 1):
# the streamed forwards' output pass with its loads issued before its stores
# (bench/wip/stream-loads-first.patch, NORM_EXP_STREAM_UNROLL sweeps a loop
# step). As built, the pass that re-reads the row from L2 and stores y keeps
# one 16-byte load of x in flight a thread: ptxas unrolls the loop but does
# not move a load above the previous sweep's store (SASS, f32 RMS N = 32768:
# F L S F L S ..., 31 registers, two blocks of 1024 an SM). With U = 4 the
# loads go 4 ahead (38 registers: one block an SM), U = 8 all 8 (52).
# Inductor's looped reduction reaches 4.13 TB/s at 2048 x 32768 f32 where
# our streamed kernel measured 3.40 (ab-2026-12-04-s48-f32-32768-stream.log).
# Here, before it:
#   git apply bench/wip/stream-loads-first.patch && (cd build && ninja)
#   for u in 1 2 4 8; do NORM_EXP_STREAM_UNROLL=$u python3 scripts/build-bundles.py \
#       --n 32768 --dtype f32 --jobs 2 --flags=--stream-rows --out .out/su/u$u
#     rm -rf .out/su/u$u/*bwd*; done
#   python3 scripts/build-bundles.py --n 32768 --dtype f32 --jobs 2 --out .out/su/rule
#   rm -rf .out/su/rule/*bwd*; git checkout lib/Conversion && (cd build && ninja)
# then carry .out/su and run `bash bench/wip/next-stream-loads-first.sh`.
set -x
exec > >(tee "$OUT/stream-loads-first.log") 2>&1
for u in 2 4 8; do python3 bench/gpu_check.py --bundles .out/su/u$u --quick | grep -v "^ok"; done
python3 bench/ab.py --variants .out/su/rule,.out/su/u1,.out/su/u2,.out/su/u4,.out/su/u8 --dtype f32 --ops rms_fwd,ln_fwd --forward infer --shapes 1024x32768,2048x32768,4096x32768 --timing kernels --rounds 2
