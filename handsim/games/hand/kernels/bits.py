"""Bit operations the kernels need, as LLVM intrinsics (numba).

``ctz(x)`` is the index of the lowest set bit of a non-zero integer (one instruction on
x86-64); ``popcount(x)`` the number of set bits.  Both take any integer (sign-extended to 64
bits) and return ``int64``.
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _int64_op(build):
    """A numba intrinsic applying ``build(builder, value)`` to its argument cast to int64."""

    def typer(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return build(builder, context.cast(builder, args[0], signature.args[0], types.int64))

        return types.int64(x), codegen

    return intrinsic(typer)


#: Index of the lowest set bit of ``x`` (``x`` must not be 0).
ctz = _int64_op(lambda builder, v: builder.cttz(v, ir.Constant(ir.IntType(1), 1)))
#: Number of set bits of ``x``.
popcount = _int64_op(lambda builder, v: builder.ctpop(v))
