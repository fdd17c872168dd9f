# A GPU call after session 48 (bench/NOTES.md, "after session 48", item 1):
# streamed forwards whose output pass issues its loads before its stores
# (bench/wip/stream-loads-first.patch; both hooks off: byte-identical to HEAD).
# - NORM_EXP_STREAM_UNROLL=U: a pass that re-reads the row (x, and LN's w, b)
#   sweeps U times a loop step, all loads first. As built the output pass
#   keeps one sweep's loads in flight: ptxas unrolls the loop but does not
#   move a load above the previous sweep's store, which may alias it (SASS:
#   f32 RMS N = 32768 "L x8 | F L S F L S ...", bf16 LN N = 32768
#   "L x11 S LLL S LLL S LLL S"). U = 2 keeps bf16's 32 registers (two blocks
#   of 1024 an SM) with two sweeps ahead; f32 at U >= 2 takes 38-52 (one block).
#   Default bundles it changes: the bf16/f16 N = 32768 forwards and the
#   backwards' dx kernels there.
# - NORM_EXP_COLUMNS_FIRST=1: a held row's output pass loads every chunk's
#   weights (LN: and bias) before the first store (as built, each chunk's
#   after the previous store: "L x6 S LL S LL S LL S" at bf16 LN N = 16384);
#   63 -> 64 registers. Changes the LN forwards at N = 12288 and 16384.
# Public shapes at stake: LN fwd 4096x16384 (1.05x of torch.compile at v82)
# and 2048x32768, RMS fwd 2048x32768; f32: 2048x32768 streamed (3.40 TB/s
# against Inductor's 4.13 with the same 1024 threads a row).
# Here, before it:
#   git apply bench/wip/stream-loads-first.patch && (cd build && ninja)
#   B="python3 scripts/build-bundles.py --jobs 2"
#   $B --n 12288,16384,32768 --out .out/sl/head
#   NORM_EXP_STREAM_UNROLL=2 $B --n 32768 --out .out/sl/u2
#   NORM_EXP_STREAM_UNROLL=4 $B --n 32768 --out .out/sl/u4
#   NORM_EXP_COLUMNS_FIRST=1 $B --n 12288,16384 --out .out/sl/cf
#   for u in 1 2 4 8; do NORM_EXP_STREAM_UNROLL=$u $B --n 32768 --dtype f32 \
#       --flags=--stream-rows --out .out/sl/f32u$u; done
#   $B --n 32768 --dtype f32 --out .out/sl/f32rule
#   rm -rf .out/sl/*/*bwd*; git checkout lib/Conversion && (cd build && ninja)
# then carry .out/sl and run `bash bench/wip/next-stream-loads-first.sh`.
set -x
exec > >(tee "$OUT/stream-loads-first.log") 2>&1
for v in u2 u4 cf f32u2 f32u4 f32u8; do python3 bench/gpu_check.py --bundles .out/sl/$v --quick | grep -v "^ok"; done
python3 bench/ab.py --variants .out/sl/head,.out/sl/u2,.out/sl/u4 --ops rms_fwd,ln_fwd --forward infer --shapes 1024x32768,2048x32768,4096x32768 --timing kernels --rounds 3
python3 bench/ab.py --variants .out/sl/head,.out/sl/cf --ops ln_fwd --forward infer --shapes 2048x12288,4096x12288,2048x16384,4096x16384,8192x16384 --timing kernels --rounds 3
python3 bench/ab.py --variants .out/sl/f32rule,.out/sl/f32u1,.out/sl/f32u2,.out/sl/f32u4,.out/sl/f32u8 --dtype f32 --ops rms_fwd,ln_fwd --forward infer --shapes 1024x32768,2048x32768,4096x32768 --timing kernels --rounds 2
