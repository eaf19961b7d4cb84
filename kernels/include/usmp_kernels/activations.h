/* USMP kernels: activations (declarations are added with their kernels). */
#ifndef USMP_KERNELS_ACTIVATIONS_H
#define USMP_KERNELS_ACTIVATIONS_H

#include <stdint.h>

#endif /* USMP_KERNELS_ACTIVATIONS_H */
