/*
 * float32 models on a core that may have an FPU: each model's outputs on its
 * reference inputs within 1e-5 relative of TFLite Micro's (the reference check
 * function the build generates counts the elements that differ), and the
 * kernels the board's float ABI gives: with CONFIG_FPU the compiler's --cpu is
 * the core and the convolutions, depthwise and fully connected layers call
 * USMP's float kernels (counted in each model's header with USMP's other own
 * kernels); without it the core is a +nofp part and every operator keeps the
 * portable kernels.
 */
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/ztest.h>

#include "usmp_test_cases.h"
#include "float_kernels_blocks.h"
#include "float_kernels_dilated.h"
#include "float_kernels_relu_n1_to_1.h"

#define OWN_OPERATORS                                                                                              \
	(USMP_FLOAT_KERNELS_BLOCKS_DSP_OPERATORS + USMP_FLOAT_KERNELS_DILATED_DSP_OPERATORS +                     \
	 USMP_FLOAT_KERNELS_RELU_N1_TO_1_DSP_OPERATORS)

ZTEST(usmp_float, test_models_match_reference)
{
	int failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(usmp_test_cases); i++) {
		int32_t mismatches = usmp_test_cases[i].check();

		TC_PRINT("%s: %d output elements differ (-1: run failed)\n", usmp_test_cases[i].name, (int)mismatches);
		failed += mismatches != 0;
	}
	zassert_equal(failed, 0, "%d of %d models differ from the reference", failed,
		      (int)ARRAY_SIZE(usmp_test_cases));
}

ZTEST(usmp_float, test_float_kernels_follow_the_float_abi)
{
	TC_PRINT("float kernels: %d of %d operators\n", (int)OWN_OPERATORS, (int)USMP_TEST_OPERATORS);
#ifdef CONFIG_FPU
	zassert_equal(OWN_OPERATORS, USMP_TEST_OPERATORS, "the FPU build calls the float kernels for %d operators of %d",
		      (int)OWN_OPERATORS, (int)USMP_TEST_OPERATORS);
#else
	zassert_equal(OWN_OPERATORS, 0, "a soft-float build called %d float kernels", (int)OWN_OPERATORS);
#endif
}

ZTEST_SUITE(usmp_float, NULL, NULL, NULL, NULL, NULL);
