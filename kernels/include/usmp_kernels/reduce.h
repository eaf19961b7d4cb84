/* USMP kernels: reduce (declarations are added with their kernels). */
#ifndef USMP_KERNELS_REDUCE_H
#define USMP_KERNELS_REDUCE_H

#include <stdint.h>

#endif /* USMP_KERNELS_REDUCE_H */
