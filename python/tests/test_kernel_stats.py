"""scripts/kernel-stats.py: the occupancy arithmetic (no GPU, no ptxas)."""

import os
import sys

from repo_scripts import ROOT, load_script

kernel_stats = load_script("kernel_stats", "scripts/kernel-stats.py")


def test_blocks_per_sm_matches_ncu():
    # ncu on the H200: the LayerNorm forward
    # at N = 1024, 128 threads of 40 registers, "Block Limit Registers 12";
    # Inductor's warp-per-row kernel, 32 threads of 64 registers, 50%
    # theoretical occupancy (32 warps of 64).
    assert kernel_stats.blocks_per_sm(128, 40, 6656) == (12, "registers")
    blocks, limit = kernel_stats.blocks_per_sm(32, 64, 0)
    assert (blocks, limit) == (32, "registers")
    # Registers are allocated per warp in units of 256: 33 registers cost
    # as much as 40.
    assert kernel_stats.blocks_per_sm(256, 33, 0) == kernel_stats.blocks_per_sm(256, 40, 0)
    # 1024 threads fill an SM's 2048 threads with two blocks; of 228 KB of
    # shared memory (1 KB reserved per block), blocks of 113 KB fit twice,
    # of 120 KB once.
    assert kernel_stats.blocks_per_sm(1024, 32, 0) == (2, "threads")
    assert kernel_stats.blocks_per_sm(256, 64, 113 * 1024) == (2, "shared")
    assert kernel_stats.blocks_per_sm(256, 64, 120 * 1024) == (1, "shared")


def test_loads_after_stores_are_counted_per_kernel():
    # nvdisasm's listing: a kernel whose second sweep loads after the first
    # sweep's store (a streamed output pass), and one that loads everything
    # first; the count starts again at each kernel.
    sass = """
        .section .text.streamed,"ax",@progbits
        /*0000*/                   LDG.E.EF.128 R4, desc[UR4][R12.64] ;
        /*0010*/                   FMUL R8, R4, R5 ;
        /*0020*/                   STG.E.128 desc[UR8][R14.64], R8 ;
        /*0030*/                   LDG.E.EF.128 R16, desc[UR4][R12.64+0x4000] ;
        /*0040*/                   LDG.E.EL.128 R4, desc[UR6][R2.64+0x4000] ;
        /*0050*/                   STG.E.128 desc[UR8][R14.64+0x4000], R4 ;
        .section .text.loads_first,"ax",@progbits
        /*0000*/                   LDG.E.128 R4, desc[UR4][R12.64] ;
        /*0010*/                   LDG.E.128 R8, desc[UR4][R12.64+0x10] ;
        /*0020*/                   STG.E.128 desc[UR8][R14.64], R4 ;
        /*0030*/                   STG.E.128 desc[UR8][R14.64+0x10], R8 ;
        /*0040*/                   EXIT ;
    """
    stats = {"streamed": {}, "loads_first": {}}
    kernel_stats.add_sass_stats(sass, stats)
    assert stats["streamed"] == {"sass": 6, "loads_after_stores": 2}
    assert stats["loads_first"] == {"sass": 5}


def test_plateau_grid_finds_split_kernels_partial_rows():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from norm_mlir.bundle import evaluate
    # A split kernel's grid (LayerNorm backward, N = 3500): 264 partial rows
    # a wave up to 67584 rows; at 16384 and 32768 rows 261 and 263 blocks.
    split = {"ceildiv": ["M", {"max": [{"ceildiv": [{"ceildiv": ["M", 264]},
                                                    {"max": [{"ceildiv": ["M", 67584]}, 1]}]},
                                       1]}]}
    assert kernel_stats.plateau_grid(split, evaluate) == 263
    # A block per row, or per four rows, grows with M; a constant grid (a
    # combine's, or one block) is not a wave of partial rows.
    assert kernel_stats.plateau_grid("M", evaluate) is None
    assert kernel_stats.plateau_grid({"ceildiv": ["M", 4]}, evaluate) is None
    assert kernel_stats.plateau_grid(448, evaluate) is None
