# Session 56: no bounds for held rows (NORM_EXP_NOBOUNDS=1 with bench/wip/held-row-index-experiments.patch,
# bundles in .out/s56/nb; wrong past M, so only M a multiple of the rows a block) against .out/s56/changed.
exec > >(tee "$OUT/nb.log") 2>&1
for f in infer stats; do
python3 bench/ab.py --variants .out/s56/changed,.out/s56/nb --ops rms_fwd,ln_fwd --forward $f --timing kernels --rounds 5 \
  --shapes 1000x256,4096x256,16384x256,65536x256,1500x512,4096x512,16384x512
done
