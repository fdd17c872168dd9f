# For the next GPU session (bench/NOTES.md item 2 after session 46): full
# ncu sets of our RMS fwd 4096 x 256 kernel and Inductor's, with per-SASS
# stall samples, to see where the 3-6% of kernel time goes (ncu's own
# gpu__time_duration: ours 3.20-3.39 us, Inductor's 3.07-3.20 us).
# Usage (on the GPU, bundles from scripts/build-bundles.py --n 256):
#   bash bench/wip/ncu-full-4096x256.sh .out/v82n
B=${1:-.out/bundles}
for impl in compile norm; do
  timeout 150 ncu --set full --import-source no --cache-control none \
    --kernel-name regex:'^(norm|triton)' --launch-skip 40 --launch-count 1 \
    -o "$OUT/fwd4096-$impl" python3 bench/profile_impl.py rms_fwd 4096x256 \
    --impl $impl --bundles "$B" --flush --repeat 60 > /dev/null 2>&1
  ncu --import "$OUT/fwd4096-$impl.ncu-rep" --page details > "$OUT/fwd4096-$impl-details.txt" 2>&1
  ncu --import "$OUT/fwd4096-$impl.ncu-rep" --page source --csv --print-source sass \
    > "$OUT/fwd4096-$impl-sass.csv" 2>&1
done
ls -la "$OUT"
