"""Predictions back on the source photo: the inverse of a sample's geometry (Batch.params)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

if TYPE_CHECKING:  # imported where used: importing segfeed needs no NumPy
    import numpy as np

__all__ = ["unwarp", "unwarp_matrix"]


def unwarp_matrix(params: Mapping[str, Any]) -> "np.ndarray":
    """The 2x3 matrix from source pixel to output pixel of one sample (``Batch.params[i]``).

    With OpenCV: ``cv2.warpAffine(pred, unwarp_matrix(p), (width, height),
    flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)`` puts ``pred`` (the
    output's size) back on the ``width`` x ``height`` photo.
    """
    import numpy as np

    m = params["source_to_output"]
    return np.array([[m["xx"], m["xy"], m["x0"]], [m["yx"], m["yy"], m["y0"]]], dtype=np.float64)


def unwarp(pred: Any, params: Mapping[str, Any], source_size: Optional[Tuple[int, int]] = None, *,
           fill: Any = 0) -> "np.ndarray":
    """Maps a prediction for one sample's output back onto its source photo.

    Args:
        pred: H x W or H x W x C, the output's size (a label map, scores, a
            mask); anything ``numpy.asarray`` takes.
        params: the sample's ``Batch.params`` entry.
        source_size: ``(height, width)`` of the result, like ``size``; by
            default the photo's own size (``params["source_height"]``,
            ``params["source_width"]``).
        fill: the value of source pixels the output window did not cover.

    Integer predictions are sampled at the nearest output pixel (labels stay
    labels), floating-point ones bilinearly. Pixel centres follow OpenCV's
    convention, as the loader's warp does, so ``unwarp`` of the loader's own
    mask gives back the source mask wherever the window kept its detail.
    """
    import numpy as np

    pred = np.asarray(pred)
    if pred.ndim not in (2, 3):
        raise ValueError(f"pred must be H x W or H x W x C (got shape {pred.shape})")
    if source_size is None:
        source_size = (int(params["source_height"]), int(params["source_width"]))
    height, width = (int(v) for v in source_size)
    if height <= 0 or width <= 0:
        raise ValueError(f"source_size must be positive (got {source_size}); a sample's params have "
                         "it once its photo was decoded")
    # The matrix is for the photo's own size; another source_size scales it.
    sx = params["source_width"] / width
    sy = params["source_height"] / height
    m = unwarp_matrix(params)
    ys, xs = np.mgrid[0:height, 0:width]
    # A pixel index of the result, as a pixel index of the photo.
    px = (xs + 0.5) * sx - 0.5
    py = (ys + 0.5) * sy - 0.5
    ox = m[0, 0] * px + m[0, 1] * py + m[0, 2]
    oy = m[1, 0] * px + m[1, 1] * py + m[1, 2]
    out_h, out_w = pred.shape[:2]
    shape = (height, width) + pred.shape[2:]
    out = np.full(shape, fill, dtype=pred.dtype)
    if np.issubdtype(pred.dtype, np.floating):
        x0 = np.floor(ox).astype(np.int64)
        y0 = np.floor(oy).astype(np.int64)
        fx, fy = ox - x0, oy - y0
        inside = (ox >= -0.5) & (ox <= out_w - 0.5) & (oy >= -0.5) & (oy <= out_h - 0.5)
        x0c, x1c = np.clip(x0, 0, out_w - 1), np.clip(x0 + 1, 0, out_w - 1)
        y0c, y1c = np.clip(y0, 0, out_h - 1), np.clip(y0 + 1, 0, out_h - 1)
        if pred.ndim == 3:
            fx, fy = fx[..., None], fy[..., None]
        value = ((1 - fy) * ((1 - fx) * pred[y0c, x0c] + fx * pred[y0c, x1c])
                 + fy * ((1 - fx) * pred[y1c, x0c] + fx * pred[y1c, x1c]))
        out[inside] = value[inside].astype(pred.dtype)
    else:
        nx = np.floor(ox + 0.5).astype(np.int64)
        ny = np.floor(oy + 0.5).astype(np.int64)
        inside = (nx >= 0) & (nx < out_w) & (ny >= 0) & (ny < out_h)
        out[inside] = pred[ny[inside], nx[inside]]
    return out
