/* USMP kernels: pooling (declarations are added with their kernels). */
#ifndef USMP_KERNELS_POOLING_H
#define USMP_KERNELS_POOLING_H

#include <stdint.h>

#endif /* USMP_KERNELS_POOLING_H */
