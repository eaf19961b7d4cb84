/*
 * USMP kernel library: portable C99 operator kernels called by generated code.
 *
 * Kernels never allocate: all memory (tensors, scratch, constants) arrives as
 * pointers planned at compile time. Shapes and quantization parameters arrive
 * in a const params struct. int8 kernels use integer arithmetic only.
 */
#ifndef USMP_KERNELS_H
#define USMP_KERNELS_H

#include "usmp_kernels/arith.h"
#include "usmp_kernels/float_math.h"
#include "usmp_kernels/fixed_point.h"
#include "usmp_kernels/fully_connected.h"
#include "usmp_kernels/conv.h"
#include "usmp_kernels/sums16x8.h"
#include "usmp_kernels/pooling.h"
#include "usmp_kernels/elementwise.h"
#include "usmp_kernels/activations.h"
#include "usmp_kernels/softmax.h"
#include "usmp_kernels/quantize.h"
#include "usmp_kernels/reduce.h"
#include "usmp_kernels/arg_min_max.h"
#include "usmp_kernels/cumsum.h"
#include "usmp_kernels/log_softmax.h"
#include "usmp_kernels/l2.h"
#include "usmp_kernels/shape_ops.h"
#include "usmp_kernels/broadcast.h"
#include "usmp_kernels/arith_binary.h"
#include "usmp_kernels/compare.h"
#include "usmp_kernels/select.h"
#include "usmp_kernels/prelu.h"
#include "usmp_kernels/add_n.h"
#include "usmp_kernels/state.h"
#include "usmp_kernels/unary.h"
#include "usmp_kernels/cast.h"
#include "usmp_kernels/resize.h"
#include "usmp_kernels/batch_matmul.h"
#include "usmp_kernels/transpose_conv.h"
#include "usmp_kernels/slice.h"
#include "usmp_kernels/embedding_lookup.h"
#include "usmp_kernels/broadcast_args.h"
#include "usmp_kernels/svdf.h"
#include "usmp_kernels/lstm.h"
#include "usmp_kernels/tiling.h"
#include "usmp_kernels/asymmetric.h"
#include "usmp_kernels/hybrid.h"
#include "usmp_kernels/signal.h"
#include "usmp_kernels/dsp.h"
#include "usmp_kernels/fpu.h"
#include "usmp_kernels/helium.h"

#endif /* USMP_KERNELS_H */
