/* USMP kernels: shape_ops (declarations are added with their kernels). */
#ifndef USMP_KERNELS_SHAPE_OPS_H
#define USMP_KERNELS_SHAPE_OPS_H

#include <stdint.h>

#endif /* USMP_KERNELS_SHAPE_OPS_H */
