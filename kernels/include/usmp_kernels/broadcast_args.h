/*
 * USMP kernels: BROADCAST_ARGS of shapes known only at run time (constant
 * shapes are broadcast by the compiler).
 *
 * Both shapes are aligned at their last entry; a missing entry counts as 1.
 * An entry of 1 takes the other shape's entry. Shapes that cannot broadcast
 * (TFLite Micro aborts) give the first shape's entry.
 */
#ifndef USMP_KERNELS_BROADCAST_ARGS_H
#define USMP_KERNELS_BROADCAST_ARGS_H

#include <stdint.h>

struct usmp_broadcast_args_params {
	int32_t length1; /* entries of shape1 */
	int32_t length2; /* entries of shape2 */
	int32_t length;  /* entries of the output */
};

void usmp_broadcast_args_s32(const struct usmp_broadcast_args_params *p, const int32_t *shape1,
			     const int32_t *shape2, int32_t *output);
void usmp_broadcast_args_s64(const struct usmp_broadcast_args_params *p, const int64_t *shape1,
			     const int64_t *shape2, int64_t *output);

#endif /* USMP_KERNELS_BROADCAST_ARGS_H */
