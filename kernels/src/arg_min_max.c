/* ARG_MAX and ARG_MIN kernels (see usmp_kernels/arg_min_max.h). */
#include "usmp_kernels.h"

/* One loop for every input and index type; `better` is > (ARG_MAX) or < (ARG_MIN). */
#define USMP_DEFINE_ARG(name, in_type, out_type, better)                                            \
	void name(const struct usmp_arg_min_max_params *p, const in_type *input, out_type *output)   \
	{                                                                                           \
		int32_t outer, inner, i;                                                            \
                                                                                                    \
		for (outer = 0; outer < p->outer; outer++) {                                        \
			const in_type *row = input + outer * p->axis_size * p->inner;               \
                                                                                                    \
			for (inner = 0; inner < p->inner; inner++) {                                \
				in_type best = row[inner];                                          \
				int32_t best_index = 0;                                             \
                                                                                                    \
				for (i = 1; i < p->axis_size; i++) {                                \
					const in_type value = row[i * p->inner + inner];            \
                                                                                                    \
					if (value better best) {                                    \
						best = value;                                       \
						best_index = i;                                     \
					}                                                           \
				}                                                                   \
				*output++ = (out_type)best_index;                                   \
			}                                                                           \
		}                                                                                   \
	}

USMP_DEFINE_ARG(usmp_arg_max_f32_i32, float, int32_t, >)
USMP_DEFINE_ARG(usmp_arg_min_f32_i32, float, int32_t, <)
USMP_DEFINE_ARG(usmp_arg_max_s8_i32, int8_t, int32_t, >)
USMP_DEFINE_ARG(usmp_arg_min_s8_i32, int8_t, int32_t, <)
USMP_DEFINE_ARG(usmp_arg_max_f32_i64, float, int64_t, >)
USMP_DEFINE_ARG(usmp_arg_min_f32_i64, float, int64_t, <)
USMP_DEFINE_ARG(usmp_arg_max_s8_i64, int8_t, int64_t, >)
USMP_DEFINE_ARG(usmp_arg_min_s8_i64, int8_t, int64_t, <)
