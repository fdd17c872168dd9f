# Session 56: the held-row forwards at N = 256 with all three of
# wip/held-row-index-experiments.patch's hooks (NORM_EXP_I32=1
# NORM_EXP_NOBOUNDS=1 NORM_EXP_OFF=1: 32-bit offsets, later rows at constant
# offsets from the first, no row bounds; wrong past M and past 2^31 bytes,
# so only at M a multiple of 4), bundles in .out/s56/lean, against
# .out/s56/changed. ncu had ours at 304 instructions a warp against
# Inductor's 251, the difference being this arithmetic and the bounds.
exec > >(tee "$OUT/lean.log") 2>&1
for f in infer stats; do
python3 bench/ab.py --variants .out/s56/changed,.out/s56/lean --ops rms_fwd,ln_fwd --forward $f --timing kernels --rounds 7 \
  --shapes 1000x256,4096x256,16384x256,65536x256
done
