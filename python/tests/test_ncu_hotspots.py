"""bench/ncu_hotspots.py: warp-stall hot spots from ncu's source page (no GPU)."""

from repo_scripts import load_script

ncu_hotspots = load_script("ncu_hotspots", "bench/ncu_hotspots.py")

HEADER = ["Address", "Source", ncu_hotspots.SAMPLES, "Warp Stall Sampling (Not-issued Samples)",
          "stall_barrier", "stall_long_sb", "stall_selected", "stall_long_sb (Not Issued)"]


def rows(*instructions):
    return [["Kernel Name", "norm_fused", ""], HEADER] + [
        ["0x0", sass, str(barrier + long_sb + selected), "0", str(barrier), str(long_sb),
         str(selected), "999"] for sass, barrier, long_sb, selected in instructions]


def test_sums_reasons_and_picks_the_hot_instructions():
    kernel, total, count, sums, hot = ncu_hotspots.hotspots(rows(
        ("LDG.E R36, desc[UR26][R36.64]", 0, 1, 1),
        ("R2UR UR23, R36", 0, 70, 2),
        ("BAR.SYNC.DEFER_BLOCKING 0x0", 20, 0, 0),
        ("FADD R1, R2, R3", 0, 0, 6)), share=0.1)
    assert (kernel, total, count) == ("norm_fused", 100, 4)
    # The "(Not Issued)" column is not a reason of its own.
    assert sums == [("long_sb", 71), ("barrier", 20), ("selected", 9)]
    # Instructions under 10% of the samples are left out; reasons with no
    # samples are not listed.
    assert hot == [(1, 72, "R2UR UR23, R36", [("long_sb", 70), ("selected", 2)]),
                   (2, 20, "BAR.SYNC.DEFER_BLOCKING 0x0", [("barrier", 20)])]


def test_empty_and_unsampled_kernels():
    assert ncu_hotspots.hotspots(rows(), share=0.01)[1:] == (0, 0, [("barrier", 0), ("long_sb", 0),
                                                                  ("selected", 0)], [])
    # Empty sample cells count as zero.
    blank = rows(("NOP", 0, 0, 0))
    blank[2][2] = ""
    assert ncu_hotspots.hotspots(blank, share=0.01)[1] == 0
