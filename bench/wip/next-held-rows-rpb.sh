# A GPU call after session 48 (bench/NOTES.md, "after session 48", item 2):
# table entries' rows per block reaching the held-row streamed forwards
# (bench/wip/table-rows-per-block-held-rows.patch) against HEAD, at the
# forward shapes where the two launch differently (found with
# scripts/same-launches.py's launches_at: RMS at 32768x2048, 16384x4096,
# 65536x4096, 4097x7168, 8192x8192, 4096x16384 of the public set and
# 8192x2048, 8192x4096, 4096x8192, 2048x16384; LN at 4096x16384, 2048x16384).
# The entries' rows per block were measured for other kernels (bench/NOTES.md),
# so a loss here says the entries need the re-sweep, not that the patch is wrong.
# Here, before it:
#   python3 scripts/build-bundles.py --bench-only --out .out/rpb0 --jobs 2
#   git apply bench/wip/table-rows-per-block-held-rows.patch && (cd build && ninja)
#   python3 scripts/build-bundles.py --bench-only --out .out/rpb1 --jobs 2
#   git checkout lib/Tuning && (cd build && ninja)
# then carry .out/rpb0 and .out/rpb1 and run `bash bench/wip/next-held-rows-rpb.sh`.
set -x
exec > >(tee "$OUT/held-rows-rpb.log") 2>&1
python3 bench/gpu_check.py --bundles .out/rpb1 --filter fwd --quick | grep -v "^ok"
S=32768x2048,16384x4096,65536x4096,4097x7168,8192x8192,4096x16384,8192x2048,8192x4096,4096x8192,2048x16384
python3 bench/ab.py --variants .out/rpb0,.out/rpb1 --ops rms_fwd,ln_fwd --forward infer --shapes $S --timing kernels --rounds 3
