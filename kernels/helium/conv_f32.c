/*
 * CONV_2D and FULLY_CONNECTED in float32 on Helium's float lanes (MVE-F,
 * Cortex-M55): three output pixels (columns) against eight output channels
 * at a time, the 3 x 2 vectors of sums in six of the eight Q registers. A tap
 * loads the two blocks' weight vectors and the three pixels' inputs and makes
 * six vector-by-scalar fused multiply-adds (24 MACs). The constants are the
 * FPU kernels' (usmp_kernels/fpu.h), so is the copy of a window into a column.
 */
#include "../fpu/fpu_ops.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>

#define BLOCK USMP_FPU_CONV_BLOCK
#define MAX_PIXELS 3

struct three_job {
	const float *x[MAX_PIXELS]; /* the columns */
	const float *w0;            /* the first block: its biases, then a vector a tap */
	const float *w1;            /* the second (the first again when there is none) */
	int32_t taps;               /* depth, a multiple of 4 */
	float *out[MAX_PIXELS];     /* where the first block's channels go */
	int32_t n1;                 /* channels of the second block stored (0 to 4) */
	const float *act;           /* act_min, act_max */
};

/* Three columns against two blocks, two taps a turn of a low-overhead loop: the columns' next two inputs
 * with LDRD, each block's weight vector of a tap with VLDRW, six vector-by-scalar VFMAs a tap. q0/q2/q4 the
 * first block's sums of the three columns, q1/q3/q5 the second's, q6-q7 the weights. */
__attribute__((naked, noinline)) static void three_by_two_asm(const struct three_job *job)
{
	(void)job;
	__asm volatile(
		"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"
		"	vpush	{d8-d15}\n"
		"	mov	r12, r0\n"
		"	ldm	r12, {r0, r1, r2, r3, r4, r11}\n"
		"	vldrw.32 q0, [r3], #16\n"
		"	vldrw.32 q1, [r4], #16\n"
		"	vmov	q2, q0\n"
		"	vmov	q3, q1\n"
		"	vmov	q4, q0\n"
		"	vmov	q5, q1\n"
		"	lsr	r11, r11, #1\n"
		"	dls	lr, r11\n"
		"1:	ldrd	r5, r8, [r0], #8\n"
		"	ldrd	r6, r9, [r1], #8\n"
		"	ldrd	r7, r10, [r2], #8\n"
		"	vldrw.32 q6, [r3], #16\n"
		"	vldrw.32 q7, [r4], #16\n"
		"	vfma.f32 q0, q6, r5\n"
		"	vfma.f32 q2, q6, r6\n"
		"	vfma.f32 q4, q6, r7\n"
		"	vfma.f32 q1, q7, r5\n"
		"	vfma.f32 q3, q7, r6\n"
		"	vfma.f32 q5, q7, r7\n"
		"	vldrw.32 q6, [r3], #16\n"
		"	vldrw.32 q7, [r4], #16\n"
		"	vfma.f32 q0, q6, r8\n"
		"	vfma.f32 q2, q6, r9\n"
		"	vfma.f32 q4, q6, r10\n"
		"	vfma.f32 q1, q7, r8\n"
		"	vfma.f32 q3, q7, r9\n"
		"	vfma.f32 q5, q7, r10\n"
		"	le	lr, 1b\n"
		"	ldrd	r0, r1, [r12, #24]\n"
		"	ldrd	r2, r3, [r12, #32]\n"
		"	ldr	r4, [r12, #40]\n"
		"	ldrd	r5, r6, [r4]\n"
		"	vdup.32	q6, r5\n"
		"	vdup.32	q7, r6\n"
		"	vmaxnm.f32 q0, q0, q6\n"
		"	vmaxnm.f32 q1, q1, q6\n"
		"	vmaxnm.f32 q2, q2, q6\n"
		"	vmaxnm.f32 q3, q3, q6\n"
		"	vmaxnm.f32 q4, q4, q6\n"
		"	vmaxnm.f32 q5, q5, q6\n"
		"	vminnm.f32 q0, q0, q7\n"
		"	vminnm.f32 q1, q1, q7\n"
		"	vminnm.f32 q2, q2, q7\n"
		"	vminnm.f32 q3, q3, q7\n"
		"	vminnm.f32 q4, q4, q7\n"
		"	vminnm.f32 q5, q5, q7\n"
		"	vstrw.32 q0, [r0]\n"
		"	vstrw.32 q2, [r1]\n"
		"	vstrw.32 q4, [r2]\n"
		"	vctp.32	r3\n"
		"	vpsttt\n"
		"	vstrwt.32 q1, [r0, #16]\n"
		"	vstrwt.32 q3, [r1, #16]\n"
		"	vstrwt.32 q5, [r2, #16]\n"
		"	vpop	{d8-d15}\n"
		"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n");
}

/* One column against one block (a lone last pixel or two). */
static void one_by_one(const float *x0, const float *w0, int32_t depth, float *out, int32_t n0, float32x4_t lo,
		       float32x4_t hi)
{
	float32x4_t a0 = vld1q_f32(w0);
	int32_t k;

	w0 += BLOCK;
	for (k = 0; k < depth; k++) {
		a0 = vfmaq_n_f32(a0, vld1q_f32(w0), *x0++);
		w0 += BLOCK;
	}
	vstrwq_p_f32(out, vminnmq_f32(vmaxnmq_f32(a0, lo), hi), vctp32q((uint32_t)n0));
}

/* Three columns (x[0..2]) against every output channel, two blocks a step; a last lone block is paired with
 * itself and its copy not stored. The first block of a pair is whole but in a layer of fewer than four
 * channels, whose sums go through a buffer. */
static void three_columns(const struct usmp_fpu_conv_params *p, const float *const *x, const float *weights,
			  float *const *out)
{
	const int32_t block_floats = BLOCK * (1 + p->depth);
	struct three_job job = { { x[0], x[1], x[2] }, weights, weights, p->depth, { out[0], out[1], out[2] }, 0,
				 &p->act_min };
	int32_t first, i, c;

	for (first = 0; first < p->out_ch; first += 2 * BLOCK) {
		const int32_t left = p->out_ch - first;

		job.w0 = weights;
		job.w1 = left > BLOCK ? weights + block_floats : weights;
		job.n1 = left > BLOCK ? (left >= 2 * BLOCK ? BLOCK : left - BLOCK) : 0;
		for (i = 0; i < MAX_PIXELS; i++) {
			job.out[i] = out[i] + first;
		}
		if (left >= BLOCK) {
			three_by_two_asm(&job);
		} else {
			float sums[MAX_PIXELS][2 * BLOCK];

			for (i = 0; i < MAX_PIXELS; i++) {
				job.out[i] = sums[i];
			}
			three_by_two_asm(&job);
			for (i = 0; i < MAX_PIXELS; i++) {
				for (c = 0; c < left; c++) {
					out[i][first + c] = sums[i][c];
				}
			}
		}
		weights += 2 * block_floats;
	}
}

static void one_column(const struct usmp_fpu_conv_params *p, const float *x, const float *weights, float *out)
{
	const int32_t block_floats = BLOCK * (1 + p->depth);
	const float32x4_t lo = vdupq_n_f32(p->act_min), hi = vdupq_n_f32(p->act_max);
	int32_t first;

	for (first = 0; first < p->out_ch; first += BLOCK) {
		const int32_t left = p->out_ch - first;

		one_by_one(x, weights, p->depth, out + first, left >= BLOCK ? BLOCK : left, lo, hi);
		weights += block_floats;
	}
}

void usmp_helium_conv_f32(const struct usmp_fpu_conv_params *p, const float *input, const float *weights,
			  float *columns, float *output)
{
	const int32_t per_image = p->out_h * p->out_w;
	const int32_t pixels = p->batches * per_image;
	int32_t px = 0;

	while (px < pixels) {
		const int32_t n = pixels - px >= MAX_PIXELS ? MAX_PIXELS : 1;
		const float *x[MAX_PIXELS];
		float *out[MAX_PIXELS];
		int32_t i;

		for (i = 0; i < n; i++) {
			const int32_t q = px + i;

			out[i] = output + q * p->out_ch;
			if (p->direct) {
				x[i] = input + q * p->in_ch;
			} else {
				x[i] = columns + i * p->depth;
				fpu_window_column(p, input, q / per_image, q % per_image / p->out_w, q % p->out_w,
						  columns + i * p->depth);
			}
		}
		if (n == MAX_PIXELS) {
			three_columns(p, x, weights, out);
		} else {
			one_column(p, x[0], weights, out[0]);
		}
		px += n;
	}
}

#else

/* Without Helium's float lanes (the host tests): the FPU kernel's C. */
void usmp_helium_conv_f32(const struct usmp_fpu_conv_params *p, const float *input, const float *weights,
			  float *columns, float *output)
{
	usmp_fpu_conv_f32(p, input, weights, columns, output);
}

#endif
