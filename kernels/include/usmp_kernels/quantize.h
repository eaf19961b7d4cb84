/* USMP kernels: quantize (declarations are added with their kernels). */
#ifndef USMP_KERNELS_QUANTIZE_H
#define USMP_KERNELS_QUANTIZE_H

#include <stdint.h>

#endif /* USMP_KERNELS_QUANTIZE_H */
