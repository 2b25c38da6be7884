"""A permute reduced to its essential axes (:func:`collapse`), the plan of the ``permute_tiled`` kernel: size-1 axes
dropped and input axes that stay neighbours in the output merged, so a (1, 197, 3, 3, 64) → (3, 1, 3, 197, 64)
transpose is the (197, 9, 64) → (9, 197, 64) one it really is."""

from __future__ import annotations


def collapse(shape: tuple[int, ...], order: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, order) of the same data movement with size-1 axes dropped and runs merged: input axes i, i+1 that
    are consecutive in ``order`` become one axis. Output axis k of the result reads input axis ``order[k]`` (numpy
    transpose). An identity (or all-size-1) permute gives ((count,), (0,))."""
    keep = [a for a in range(len(shape)) if shape[a] != 1]
    if not keep:
        return (1,), (0,)
    renum = {a: i for i, a in enumerate(keep)}
    sh = [shape[a] for a in keep]
    od = [renum[a] for a in order if a in renum]
    groups: list[list[int]] = []  # runs of input axes, in output order
    for a in od:
        if groups and groups[-1][-1] + 1 == a:
            groups[-1].append(a)
        else:
            groups.append([a])
    by_input = sorted(groups, key=lambda g: g[0])  # the merged input axes, in input order
    new_shape = []
    for g in by_input:
        n = 1
        for a in g:
            n *= sh[a]
        new_shape.append(n)
    index = {g[0]: i for i, g in enumerate(by_input)}
    new_order = tuple(index[g[0]] for g in groups)
    return tuple(new_shape), new_order


def strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major element strides of ``shape``."""
    out, s = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        out[i] = s
        s *= shape[i]
    return out

