/* USMP kernels: softmax (declarations are added with their kernels). */
#ifndef USMP_KERNELS_SOFTMAX_H
#define USMP_KERNELS_SOFTMAX_H

#include <stdint.h>

#endif /* USMP_KERNELS_SOFTMAX_H */
