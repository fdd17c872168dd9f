# The first GPU call after session 45 (bench/NOTES.md items 5 and 1).
# Here, before it:
#   python3 scripts/build-bundles.py --n 256,384,512 --out .out/v81n --jobs 2
# then carry .out/v81n and run `bash bench/wip/next-first-call.sh` there.
# 1. gpu_check of the bundles v80 and v81 built but no run checked as built.
# 2. v81's RMSNorm start at N = 384 (held rows from 1584 rows) against v80's
#    (2112): the two bundles differ only in that bound of the manifest, so
#    the v80 variant is v81's with the bound moved back.
# 3. ncu of the N = 256 kernels still behind torch.compile.
set -x
exec > >(tee "$OUT/first-call.log") 2>&1
python3 bench/gpu_check.py --bundles .out/v81n --filter bf16_384 | grep -v "^ok"
python3 bench/gpu_check.py --bundles .out/v81n --filter ln_fwd_bf16_512 | grep -v "^ok"
rm -rf .out/v80r && mkdir -p .out/v80r
for b in rms_fwd_bf16_384 rms_fwd_bf16_384_infer; do
  cp -r .out/v81n/$b .out/v80r/
  sed -i 's/\b1584\b/2112/g' .out/v80r/$b/manifest.json
done
mkdir -p .out/v81r && cp -r .out/v81n/rms_fwd_bf16_384 .out/v81n/rms_fwd_bf16_384_infer .out/v81r/
S=1500x384,1584x384,1700x384,1850x384,2000x384,2111x384
python3 bench/ab.py --variants .out/v80r,.out/v81r --ops rms_fwd --forward infer --shapes $S --timing kernels --rounds 7
python3 bench/ab.py --variants .out/v81r,.out/v80r --ops rms_fwd --forward infer --shapes $S --timing kernels --rounds 7
python3 bench/ab.py --variants .out/v80r,.out/v81r --ops rms_fwd --forward stats --shapes $S --timing kernels --rounds 7
bash bench/wip/ncu-n256-gap.sh .out/v81n
