# Session 58: bench.py over the bf16 public set, all four ops against torch
# eager and torch.compile, kernel time, 2 rounds, the 194 default bundles at
# 64f1bbd (.out/s58all: scripts/build-bundles.py --out .out/s58all).
# Usage (on the GPU): bash bench/wip/public-s58.sh fwd|bwd
case "${1:-}" in
fwd) ops=rms_fwd,ln_fwd ;;
bwd) ops=rms_bwd,ln_bwd ;;
*) echo "usage: $0 fwd|bwd" >&2; exit 2 ;;
esac
exec > >(tee "$OUT/public-s58-$1.log") 2>&1
set -x
python3 bench/bench.py --bundles .out/s58all --ops $ops --timing kernels --rounds 2 --out $OUT
ls $OUT
