# Session 56: the streamed forwards at N = 256 without L2 eviction hints or
# their createpolicy (bench/wip/unhinted-streamed-loads.patch,
# NORM_EXP_NOHINT=1, bundles in .out/s56/nh) against .out/s56/changed.
exec > >(tee "$OUT/nohint.log") 2>&1
for f in infer stats; do
python3 bench/ab.py --variants .out/s56/changed,.out/s56/nh --ops rms_fwd,ln_fwd --forward $f --timing kernels --rounds 7 \
  --shapes 1000x256,4096x256,16384x256,65536x256,4097x256
done
