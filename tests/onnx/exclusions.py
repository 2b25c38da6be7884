"""ONNX node conformance cases that are excluded, each with its reason. The one place exclusions are listed.

Cases of operators outside the converter table, and cases whose inputs are not float32/integer/bool (float16,
float64, bfloat16, strings, float8), are not collected at all (see tests/onnx/test_conformance.py).
"""

EXCLUDED: dict[str, str] = {
    # nn ops group (Conv, ConvTranspose, pools, Gemm, MatMul, norms, LRN, Softmax, LogSoftmax)
    "test_batchnorm_example_training_mode": "BatchNormalization training_mode=1 is refused (inference only)",
    "test_batchnorm_epsilon_training_mode": "BatchNormalization training_mode=1 is refused (inference only)",
    "test_maxpool_with_argmax_2d_precomputed_pads": "MaxPool Indices (argmax) output is refused",
    "test_maxpool_with_argmax_2d_precomputed_strides": "MaxPool Indices (argmax) output is refused",
    # shape ops group (Concat, Reshape, Transpose, Slice, Split, Pad, Expand, Tile, Gather, Resize, Dropout, Cast ...)
    "test_training_dropout": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_mask": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_default": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_default_mask": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    # linear quantization (QuantizeLinear/DequantizeLinear, QLinear*, *Integer, DynamicQuantizeLinear)
    "test_dequantizelinear_blocked": "blocked quantization (block_size > 0) is refused",
    "test_quantizelinear_blocked_asymmetric": "blocked quantization (block_size > 0) is refused",
    # loss ops expanded into primitives (NegativeLogLikelihoodLoss' function body: GatherElements, Where ...)
    "test_nllloss_NCd1d2d3d4d5_mean_weight_expanded": "an intermediate of rank 7 (the engine's tensors are rank 1-6)",
    "test_nllloss_NCd1d2d3d4d5_none_no_weight_expanded": "an intermediate of rank 7 (the engine's tensors are rank "
                                                         "1-6)",
}
