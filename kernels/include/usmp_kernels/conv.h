/* USMP kernels: conv (declarations are added with their kernels). */
#ifndef USMP_KERNELS_CONV_H
#define USMP_KERNELS_CONV_H

#include <stdint.h>

#endif /* USMP_KERNELS_CONV_H */
