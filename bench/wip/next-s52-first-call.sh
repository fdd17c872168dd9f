#!/usr/bin/env bash
# First call of the session after 51 (ready): LayerNorm's statistics forward
# with four rows a block (64 registers, .minnctapersm = the blocks they
# allow: ptxas 64 registers, no spills at N = 1536-4096) from where its
# two-row band ends (one wave of two-row blocks at 40 registers) to one wave
# of four-row blocks, against main. Predicted from the inference forward's
# run (h200-2026-12-04-s51-layernorm-four-rows*.log): 1.1-1.25x in
# 793-1056 x 4096, 1585-2112 x 2048, 1057-1584 x 2560, 2113-2640 x 1536,
# level elsewhere.
# Build here first (the patch gates the rule behind NORM_EXP_STATS4):
#   python3 scripts/build-bundles.py --n 1536,2048,2560,3072,4096 --out .out/s52base --jobs 2
#   git apply bench/wip/layernorm-stats-four-rows.patch && (cd build && ninja)
#   NORM_EXP_STATS4=1 python3 scripts/build-bundles.py --n 1536,2048,2560,3072,4096 --out .out/s52st4 --jobs 2
#   git checkout lib/Tuning/ShortRows.cpp && (cd build && ninja)
#   rm -rf .out/s52base/*bwd* .out/s52st4/*bwd*
# Run with carry [".out/s52base", ".out/s52st4"].
exec > >(tee "$OUT/next-s52-first-call.log") 2>&1
set -x
python3 bench/gpu_check.py --bundles .out/s52st4 --filter ln_fwd | grep -v '^ok'
python3 bench/ab.py --variants .out/s52base,.out/s52st4 --ops ln_fwd --forward stats --timing kernels --rounds 7 \
  --shapes 700x4096,900x4096,1056x4096,1200x4096,1400x2048,1800x2048,2112x2048,2300x2048,1000x2560,1300x2560,1584x2560,1700x2560,2000x1536,2400x1536,2640x1536,2900x1536
