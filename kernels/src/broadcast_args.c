/* BROADCAST_ARGS at run time (see usmp_kernels/broadcast_args.h). */
#include "usmp_kernels.h"

#define USMP_DEFINE_BROADCAST_ARGS(suffix, type)                                                   \
	void usmp_broadcast_args_##suffix(const struct usmp_broadcast_args_params *p, const type *shape1, \
					  const type *shape2, type *output)                        \
	{                                                                                          \
		int32_t back;                                                                      \
                                                                                                   \
		for (back = 0; back < p->length; back++) {                                         \
			const int32_t i1 = p->length1 - 1 - back;                                  \
			const int32_t i2 = p->length2 - 1 - back;                                  \
			const type a = i1 >= 0 ? shape1[i1] : 1;                                   \
			const type b = i2 >= 0 ? shape2[i2] : 1;                                   \
                                                                                                   \
			output[p->length - 1 - back] = a == 1 ? b : a;                             \
		}                                                                                  \
	}

USMP_DEFINE_BROADCAST_ARGS(s32, int32_t)
USMP_DEFINE_BROADCAST_ARGS(s64, int64_t)
