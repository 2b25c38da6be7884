"""ONNX node conformance cases that are excluded, each with its reason. The one place exclusions are listed.

Cases of operators outside the converter table, and cases whose inputs are not float32/integer/bool (float16,
float64, bfloat16, strings, float8), are not collected at all (see tests/onnx/test_conformance.py).
"""

EXCLUDED: dict[str, str] = {
    # reduce group (ReduceMean/Sum/Max/Min, ArgMax)
    "test_reduce_max_empty_set": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    "test_reduce_min_empty_set": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    "test_reduce_sum_empty_set": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    "test_reduce_sum_empty_set_non_reduced_axis_zero": "zero-size input and output tensors: Layout needs sizes >= 1",
    "test_reduce_l1_empty_set_expanded": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    "test_reduce_log_sum_empty_set_expanded": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    "test_reduce_sum_square_empty_set_expanded": "zero-size input tensor (2, 0, 4): Layout needs sizes >= 1",
    # nn ops group (Conv, ConvTranspose, pools, Gemm, MatMul, norms, LRN, Softmax, LogSoftmax)
    "test_convtranspose_3d": "3-D transposed convolution: the Deconvolution primitive is 2-D (3-D is refused)",
    "test_batchnorm_example_training_mode": "BatchNormalization training_mode=1 is refused (inference only)",
    "test_batchnorm_epsilon_training_mode": "BatchNormalization training_mode=1 is refused (inference only)",
    "test_maxpool_with_argmax_2d_precomputed_pads": "MaxPool Indices (argmax) output is refused",
    "test_maxpool_with_argmax_2d_precomputed_strides": "MaxPool Indices (argmax) output is refused",
    # shape ops group (Concat, Reshape, Transpose, Slice, Split, Pad, Expand, Tile, Gather, Resize, Dropout, Cast ...)
    "test_reshape_allowzero_reordered": "zero-size input tensor (0, 3, 4): Layout needs sizes >= 1",
    "test_slice_start_out_of_bounds": "empty result (20, 0, 5): Layout needs sizes >= 1",
    "test_split_zero_size_splits_opset13": "zero-size input and outputs: Layout needs sizes >= 1",
    "test_split_zero_size_splits_opset18": "zero-size input and outputs: Layout needs sizes >= 1",
    "test_training_dropout": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_mask": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_default": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_training_dropout_default_mask": "Dropout training_mode=1 with ratio > 0 is random (inference only)",
    "test_rotary_embedding_expanded": "Split with a zero-size output (no non-rotated part): Layout needs sizes >= 1",
    "test_rotary_embedding_3d_input_expanded": "Split with a zero-size output: Layout needs sizes >= 1",
    "test_rotary_embedding_no_position_ids_expanded": "Split with a zero-size output: Layout needs sizes >= 1",
    "test_rotary_embedding_interleaved_expanded": "Shape of a Split output sized by folded constants: the import "
                                                  "decides folding before converting (not static then)",
    "test_rotary_embedding_with_interleaved_rotary_dim_expanded": "Shape of a Split output sized by folded "
                                                                  "constants (see rotary_embedding_interleaved)",
    "test_rotary_embedding_no_position_ids_interleaved_expanded": "Shape of a Split output sized by folded "
                                                                  "constants (see rotary_embedding_interleaved)",
    "test_center_crop_pad_crop_expanded": "Shape of a Pad output sized by folded values",
    "test_center_crop_pad_pad_expanded": "Shape of a Pad output sized by folded values",
    "test_center_crop_pad_crop_and_pad_expanded": "Shape of a Pad output sized by folded values",
    "test_center_crop_pad_crop_axes_hwc_expanded": "Shape of a Pad output sized by folded values",
    "test_center_crop_pad_crop_negative_axes_hwc_expanded": "Shape of a Pad output sized by folded values",
    "test_center_crop_pad_crop_axes_chw_expanded": "Shape of a Pad output sized by folded values",
}
