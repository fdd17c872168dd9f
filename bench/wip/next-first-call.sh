# The first GPU call after session 48 (bench/NOTES.md, "after session 48",
# item 1): the f32 forwards at N = 32768 (RMS 0.92x of torch.compile), the
# rule's clusters of 2 x 256 threads (64 floats a thread) against 2 x 512
# (--register-budget=16), 4 x 512 (--register-budget=8: the bytes a thread
# of bf16's N = 65536 clusters holds), rows staged 2 deep, and LayerNorm's
# clusters at the budget (ln1x: the wip patch; its RMS bundles are the rule's).
# Here, before it:
#   for v in "base:" "rb16:--register-budget=16" "rb8:--register-budget=8" \
#            "ss2:--shared-stages=2"; do
#     python3 scripts/build-bundles.py --n 32768 --dtype f32 --jobs 2 \
#         --out .out/f32l/${v%%:*} --flags="${v#*:}"
#     rm -rf .out/f32l/${v%%:*}/*bwd*
#   done
#   git apply bench/wip/f32-layernorm-clusters-at-the-budget.patch && (cd build && ninja)
#   python3 scripts/build-bundles.py --n 32768 --dtype f32 --jobs 2 --out .out/f32l/ln1x
#   rm -rf .out/f32l/ln1x/*bwd*; git checkout lib/Tuning && (cd build && ninja)
# then carry .out/f32l and run `bash bench/wip/next-first-call.sh` (about
# 70 s on a warm machine).
set -x
exec > >(tee "$OUT/first-call.log") 2>&1
for v in rb16 rb8 ss2 ln1x; do python3 bench/gpu_check.py --bundles .out/f32l/$v --quick | grep -v "^ok"; done
python3 bench/ab.py --variants .out/f32l/base,.out/f32l/rb16,.out/f32l/rb8,.out/f32l/ss2,.out/f32l/ln1x --dtype f32 --ops rms_fwd,ln_fwd --forward infer --shapes 1024x32768,2048x32768,4096x32768 --timing kernels --rounds 2
