# Session 56: held rows' loads at the clamped row (a missing row reads the
# block's first row again) without the existence predicate
# (NORM_EXP_CLAMP=1 bundles in .out/s56/cl, from bench/wip/clamped-held-row-loads.patch) against the predicated loads
# (.out/s56/changed), N = 256 / 512 forwards; 4097 and 16383 rows leave a last block part empty.
exec > >(tee "$OUT/clamp.log") 2>&1
for f in infer stats; do
python3 bench/ab.py --variants .out/s56/changed,.out/s56/cl --ops rms_fwd,ln_fwd --forward $f --timing kernels --rounds 5 \
  --shapes 1000x256,4096x256,16384x256,65536x256,1500x512,4096x512,16384x512,4097x256,16383x512
done
python3 bench/gpu_check.py --bundles .out/s56/cl | grep -v '^ok' | tail -3
