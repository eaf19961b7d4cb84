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
#include "usmp_kernels/pooling.h"
#include "usmp_kernels/elementwise.h"
#include "usmp_kernels/activations.h"
#include "usmp_kernels/softmax.h"
#include "usmp_kernels/quantize.h"
#include "usmp_kernels/reduce.h"
#include "usmp_kernels/shape_ops.h"
#include "usmp_kernels/state.h"
#include "usmp_kernels/svdf.h"
#include "usmp_kernels/lstm.h"

#endif /* USMP_KERNELS_H */
