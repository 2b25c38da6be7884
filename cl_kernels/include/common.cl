// Helpers shared by every cldnn_py kernel; prepended once to each batched program.
#ifndef CLDNN_PY_COMMON_CL
#define CLDNN_PY_COMMON_CL
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// Conversion of an accumulator to the output type: saturating round-to-nearest-even for integers.
#define CONVERT_TO(type, v) CAT(convert_, CAT(type, _sat_rte))(v)
#endif
