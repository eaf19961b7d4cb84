/* USMP kernels: elementwise (declarations are added with their kernels). */
#ifndef USMP_KERNELS_ELEMENTWISE_H
#define USMP_KERNELS_ELEMENTWISE_H

#include <stdint.h>

#endif /* USMP_KERNELS_ELEMENTWISE_H */
