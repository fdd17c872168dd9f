"""scripts/same-launches.py and the SASS helpers of scripts/cuda_tools.py
(no GPU; the SASS comparison needs ptxas and nvdisasm and is skipped
without them)."""

import pytest

from repo_scripts import load_script

cuda_tools = load_script("cuda_tools", "scripts/cuda_tools.py")
same_launches = load_script("same_launches", "scripts/same-launches.py")


def test_sass_by_kernel_drops_addresses():
    # nvdisasm's listing of two kernels: instructions keyed by kernel, their
    # addresses and encodings gone, so that the same code at other
    # addresses compares equal.
    listing = """
        .section .text.norm_fused,"ax",@progbits
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        .section .text.norm_combine,"ax",@progbits
        /*0000*/                   EXIT ;
    """
    kernels = cuda_tools.sass_by_kernel(listing)
    assert kernels == {
        "norm_fused": ["LDC R1, c[0x0][0x28]", "LDG.E.128 R4, desc[UR4][R2.64]"],
        "norm_combine": ["EXIT"],
    }
    shifted = listing.replace("/*0000*/", "/*0100*/").replace("/*0010*/", "/*0110*/")
    assert cuda_tools.sass_by_kernel(shifted) == kernels


PTX = """//
.version 8.1
.target sm_90
.address_size 64

.visible .entry norm_fused(
\t.param .u64 norm_fused_param_0
)
.maxntid 32, 1, 1
{
\t.reg .b32 \t%r<3>;
\t.reg .b64 \t%rd<3>;

\tld.param.b64 \t%rd1, [norm_fused_param_0];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tmov.u32 \t%r1, %tid.x;
\tmul.lo.s32 \t%r2, %r1, 3;
\tst.global.b32 \t[%rd2], %r2;
\tret;
}
"""


@pytest.mark.skipif(cuda_tools.ptxas_path() is None or cuda_tools.nvdisasm_path() is None,
                    reason="needs ptxas and nvdisasm ($PTXAS, $NVDISASM or PATH)")
def test_sass_differences_tells_directives_from_code(tmp_path):
    tools = (cuda_tools.ptxas_path(), cuda_tools.nvdisasm_path())
    builds = {}
    variants = {
        "old": PTX,
        # A comment inside the entry: the PTX differs, the SASS does not.
        "comment": PTX.replace("\tret;", "\t// the end\n\tret;"),
        # Another multiplier: the code differs.
        "code": PTX.replace("%r1, 3;", "%r1, 5;"),
    }
    for name, text in variants.items():
        d = tmp_path / name
        d.mkdir()
        (d / "kernels.ptx").write_text(text)
        builds[name] = str(d)
    assert same_launches.sass_differences(builds["old"], builds["comment"], "sm_90", *tools) == []
    differing = same_launches.sass_differences(builds["old"], builds["code"], "sm_90", *tools)
    assert len(differing) == 1 and differing[0].startswith("norm_fused (")
