/*
 * exp, expm1, tanh, sqrt, log, sin and cos for the float32 kernels, so the library
 * needs no libm.
 *
 * Zephyr's default minimal libc has no expf/tanhf, and a libm costs flash on
 * a Cortex-M0. These stay within a few ULP of the C library's results
 * (usmp_sqrtf is correctly rounded; usmp_sinf/usmp_cosf reduce any finite
 * argument exactly).
 */
#ifndef USMP_KERNELS_FLOAT_MATH_H
#define USMP_KERNELS_FLOAT_MATH_H

float usmp_expf(float x);
float usmp_tanhf(float x);
float usmp_expm1f(float x);
float usmp_sqrtf(float x);
float usmp_logf(float x);
float usmp_sinf(float x);
float usmp_cosf(float x);

/* C's fmodf (exact) and floor on double, for FLOOR_MOD and FLOOR_DIV. */
float usmp_fmodf(float x, float y);
double usmp_floor(double x);

#endif /* USMP_KERNELS_FLOAT_MATH_H */
