"""Ways to run cldnn_py inside other frameworks.

``predictor``: :class:`BatchPredictor`, a callable class holding one compiled Network per process, for any framework
that maps a function over batches (Ray Data ``map_batches``, Ray Serve, Dask). It needs nothing beyond cldnn_py.

``ray``: helpers for Ray Data (the ``[ray]`` extra): :func:`cldnn_py.integrations.ray.map_batches` and the actor
options that place a worker on an OpenCL node (custom resource ``"opencl"``) or a CPU node.
"""

from .predictor import BatchPredictor

__all__ = ["BatchPredictor"]
