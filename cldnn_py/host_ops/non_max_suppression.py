"""NonMaxSuppression on the host: greedy per-class suppression by intersection over union, vectorized in numpy.

The algorithm is the greedy NMS of the object-detection literature (Felzenszwalb et al., "Object Detection with
Discriminatively Trained Part-Based Models", TPAMI 2010; the form used by R-CNN / SSD / YOLO post-processing), with
the semantics of the ONNX operator (NonMaxSuppression-10/11) as onnxruntime runs it:

- per batch ``b`` and class ``c``: the boxes whose score is strictly above ``score_threshold`` (all boxes when it is
  absent), in descending score order (ties: the lower box index first);
- the best remaining box is selected and every remaining box whose IoU with it is strictly above ``iou_threshold``
  is dropped, until ``max_output_boxes_per_class`` boxes are selected or none remain;
- IoU is computed in float32 on the box corners (``center_point_box=0``: [y1, x1, y2, x2], either diagonal pair;
  ``1``: [x_center, y_center, width, height]); boxes that do not intersect, or whose area is 0, are never suppressed;
- the output is (num_selected, 3) int64 rows [batch, class, box], ordered by batch, then class, then selection.

Each selection costs one vectorized IoU of the chosen box against the remaining ones: O(n · k) per class for n
candidates and k selections, no n × n matrix.

The output size depends on the data, so this runs as a host stage of a partitioned network
(``partitioned_network.py``; ``load_onnx`` puts it there): the tensors before and after it stay with the engine
stages, and only its inputs and output cross.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError


def _scalar(what: str, name: str, v: np.ndarray | None, default: float) -> float:
    if v is None:
        return default
    a = np.asarray(v)
    if a.size != 1:
        raise ShapeError(f"{what}: {name} must hold one value, got shape {a.shape}")
    return a.reshape(-1)[0].item()


def _corners(boxes: np.ndarray, center_point_box: int) -> tuple[np.ndarray, ...]:
    """(y_min, x_min, y_max, x_max) float32 arrays of (n, 4) boxes in the ONNX encodings."""
    b = boxes.astype(np.float32, copy=False)
    if center_point_box == 0:
        return (np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]),
                np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3]))
    half_w, half_h = b[:, 2] / np.float32(2), b[:, 3] / np.float32(2)
    return b[:, 1] - half_h, b[:, 0] - half_w, b[:, 1] + half_h, b[:, 0] + half_w


def _select(corners: tuple[np.ndarray, ...], areas: np.ndarray, order: np.ndarray, limit: int,
            iou_threshold: float) -> list[int]:
    """Greedy selection among candidate box indices ``order`` (best first)."""
    y0, x0, y1, x1 = corners
    thr = np.float32(iou_threshold)
    picked: list[int] = []
    alive = order
    while alive.size and len(picked) < limit:
        i = int(alive[0])
        picked.append(i)
        rest = alive[1:]
        if not rest.size:
            break
        ih = np.minimum(y1[i], y1[rest]) - np.maximum(y0[i], y0[rest])
        iw = np.minimum(x1[i], x1[rest]) - np.maximum(x0[i], x0[rest])
        inter = ih * iw
        union = areas[i] + areas[rest] - inter
        meets = (ih > 0) & (iw > 0) & (inter > 0) & (areas[i] > 0) & (areas[rest] > 0) & (union > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = np.where(meets, inter / np.where(union > 0, union, np.float32(1)), np.float32(0))
        alive = rest[~(meets & (iou > thr))]
    return picked


def non_max_suppression(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class: np.ndarray | None = None,
                        iou_threshold: np.ndarray | None = None, score_threshold: np.ndarray | None = None,
                        center_point_box: int = 0, what: str = "NonMaxSuppression") -> np.ndarray:
    """Selected box indices of ONNX NonMaxSuppression (see the module docstring for the exact rules).

    Args:
        boxes: (num_batches, num_boxes, 4) float, in the encoding ``center_point_box`` names.
        scores: (num_batches, num_classes, num_boxes) float.
        max_output_boxes_per_class: one integer (default 0: nothing is selected; negative counts as 0).
        iou_threshold: one float in [0, 1] (default 0).
        score_threshold: one float, or None for no score filter.
        center_point_box: 0 (corners [y1, x1, y2, x2]) or 1 (centres [xc, yc, w, h]).
        what: the node named in errors.
    Returns:
        (num_selected, 3) int64 rows [batch index, class index, box index].
    Raises:
        ShapeError: boxes or scores of the wrong rank or sizes that disagree, a threshold that is not one value,
            iou_threshold outside [0, 1], center_point_box not 0 or 1.
    """
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        raise ShapeError(f"{what}: boxes: expected (num_batches, num_boxes, 4), got {boxes.shape}")
    if scores.ndim != 3 or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise ShapeError(f"{what}: scores: expected ({boxes.shape[0]}, num_classes, {boxes.shape[1]}), got "
                         f"{scores.shape}")
    if center_point_box not in (0, 1):
        raise ShapeError(f"{what}: center_point_box: expected 0 or 1, got {center_point_box}")
    limit = max(int(_scalar(what, "max_output_boxes_per_class", max_output_boxes_per_class, 0)), 0)
    iou = float(_scalar(what, "iou_threshold", iou_threshold, 0.0))
    if not 0.0 <= iou <= 1.0:
        raise ShapeError(f"{what}: iou_threshold: expected a value in [0, 1], got {iou}")
    score_min = None if score_threshold is None else np.float32(_scalar(what, "score_threshold", score_threshold,
                                                                        0.0))
    rows: list[tuple[int, int, int]] = []
    if limit == 0:
        return np.zeros((0, 3), np.int64)
    for b in range(boxes.shape[0]):
        corners = _corners(boxes[b], center_point_box)
        areas = (corners[2] - corners[0]) * (corners[3] - corners[1])
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float32, copy=False)
            cand = np.arange(s.size) if score_min is None else np.flatnonzero(s > score_min)
            order = cand[np.argsort(-s[cand], kind="stable")]
            rows += [(b, c, i) for i in _select(corners, areas, order, limit, iou)]
    return np.array(rows, np.int64).reshape(-1, 3)
