/*
 * DEPTHWISE_CONV_2D in float32 on Helium's float lanes (MVE-F, Cortex-M55),
 * depth multiplier 1: two output pixels side by side and a group of eight
 * channels at a time (their sums in four Q registers). A filter tap loads the
 * group's two weight vectors once for both pixels, and each pixel's two input
 * vectors, and makes four vector fused multiply-adds (16 MACs); a pixel whose
 * window the padding cuts differently from its neighbour's goes alone. The
 * constants are the FPU kernels' (usmp_kernels/fpu.h).
 */
#include "../fpu/fpu_ops.h"

#include "usmp_kernels/conv.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#endif

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)

#define GROUP USMP_FPU_DEPTHWISE_GROUP


/* The loops over groups, filter rows and taps (a low-overhead loop): r12 the job, r0 the group's input, r1 its
 * block, r2 groups left, r3 rows left, r4 the output, r5 the row's first tap, r6 the weights, r7 (and r8) the
 * pixels' taps, r9 x_col, r10 x_step, r11 x_row; q0-q1 (and q2-q3) the sums, q4-q5 inputs, q6-q7 weights. */
#define GROUPS_ENTRY                                 \
	"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n" \
	"	vpush	{d8-d15}\n"                          \
	"	mov	r12, r0\n"                              \
	"	ldm	r12, {r0, r1, r2}\n"                    \
	"	ldrd	r9, r11, [r12, #20]\n"                 \
	"	ldr	r10, [r12, #48]\n"                      \
	"	ldr	r4, [r12, #40]\n"                       \
	"1:	vldrw.32 q0, [r1]\n"                          \
	"	vldrw.32 q1, [r1, #16]\n"
#define ROWS_ENTRY                                   \
	"	ldr	r6, [r12, #28]\n"                       \
	"	add	r6, r6, r1\n"                           \
	"	mov	r5, r0\n"                               \
	"	ldr	r3, [r12, #12]\n"                       \
	"2:	mov	r7, r5\n"                               \
	"	add	r8, r5, r10\n"                          \
	"	ldr	lr, [r12, #16]\n"                       \
	"	dls	lr, lr\n"                               \
	"3:	vldrw.32 q7, [r6, #16]\n"                     \
	"	vldrw.32 q6, [r6], #32\n"                     \
	"	vldrw.32 q5, [r7, #16]\n"                     \
	"	vldrw.32 q4, [r7]\n"                          \
	"	add	r7, r7, r9\n"                           \
	"	vfma.f32 q0, q4, q6\n"                        \
	"	vfma.f32 q1, q5, q7\n"
#define ROWS_EXIT                                    \
	"	le	lr, 3b\n"                               \
	"	ldr	lr, [r12, #32]\n"                       \
	"	add	r6, r6, lr\n"                           \
	"	add	r5, r5, r11\n"                          \
	"	subs	r3, r3, #1\n"                          \
	"	bne	2b\n"                                   \
	"	ldr	r3, [r12, #44]\n"                       \
	"	ldrd	r5, r7, [r3]\n"                        \
	"	vdup.32	q4, r5\n"                              \
	"	vdup.32	q5, r7\n"                              \
	"	vmaxnm.f32 q0, q0, q4\n"                      \
	"	vmaxnm.f32 q1, q1, q4\n"                      \
	"	vminnm.f32 q0, q0, q5\n"                      \
	"	vminnm.f32 q1, q1, q5\n"                      \
	"	vstrw.32 q0, [r4]\n"                          \
	"	vstrw.32 q1, [r4, #16]\n"
#define GROUPS_EXIT                                  \
	"	adds	r4, r4, #32\n"                         \
	"	adds	r0, r0, #32\n"                         \
	"	ldr	r3, [r12, #36]\n"                       \
	"	add	r1, r1, r3\n"                           \
	"	subs	r2, r2, #1\n"                          \
	"	bne	1b\n"                                   \
	"	vpop	{d8-d15}\n"                            \
	"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n"

/* Every whole group of one output pixel. */
__attribute__((naked, noinline)) static void one_pixel_asm(const struct fpu_depthwise_job *job)
{
	(void)job;
	__asm volatile(GROUPS_ENTRY ROWS_ENTRY ROWS_EXIT GROUPS_EXIT);
}

/* Every whole group of two output pixels with the same taps: the weights loaded once for both. */
__attribute__((naked, noinline)) static void two_pixels_asm(const struct fpu_depthwise_job *job)
{
	(void)job;
	__asm volatile(
		GROUPS_ENTRY
		"	vmov	q2, q0\n"
		"	vmov	q3, q1\n"
		ROWS_ENTRY
		"	vldrw.32 q5, [r8, #16]\n"
		"	vldrw.32 q4, [r8]\n"
		"	add	r8, r8, r9\n"
		"	vfma.f32 q2, q4, q6\n"
		"	vfma.f32 q3, q5, q7\n"
		ROWS_EXIT
		"	vmaxnm.f32 q2, q2, q4\n"
		"	vmaxnm.f32 q3, q3, q4\n"
		"	vminnm.f32 q2, q2, q5\n"
		"	vminnm.f32 q3, q3, q5\n"
		"	ldr	r3, [r12, #52]\n"
		"	add	r3, r3, r4\n"
		"	vstrw.32 q2, [r3]\n"
		"	vstrw.32 q3, [r3, #16]\n"
		GROUPS_EXIT);
}

/* One pixel's last group of 4 channels, in C. */
static void last_four(const struct usmp_fpu_depthwise_params *p, const float *x, const float *block, int32_t fy0,
		      int32_t fy1, int32_t fx0, int32_t fx1, float *out)
{
	float32x4_t s = vld1q_f32(block);
	int32_t fy, fx;

	for (fy = fy0; fy < fy1; fy++) {
		for (fx = fx0; fx < fx1; fx++) {
			const float *xi = x + ((fy - fy0) * p->dilation_h * p->in_w + (fx - fx0) * p->dilation_w) *
							p->channels;

			s = vfmaq_f32(s, vld1q_f32(xi), vld1q_f32(block + 4 + (fy * p->filter_w + fx) * 4));
		}
	}
	vst1q_f32(out, vminnmq_f32(vmaxnmq_f32(s, vdupq_n_f32(p->act_min)), vdupq_n_f32(p->act_max)));
}

void usmp_helium_depthwise_f32(const struct usmp_fpu_depthwise_params *p, const float *input,
			       const float *weights, float *output)
{
	const int32_t taps = p->filter_h * p->filter_w;
	const int32_t whole = p->channels / GROUP;
	const float *tail_block = weights + whole * GROUP * (1 + taps);
	struct fpu_depthwise_job job;
	int32_t b, oy, ox, fy0, fy1, fx0, fx1, nx0, nx1;

	job.block = weights;
	job.groups = whole;
	job.x_col = 4 * p->dilation_w * p->channels;
	job.x_row = 4 * p->dilation_h * p->in_w * p->channels;
	job.block_bytes = 4 * GROUP * (1 + taps);
	job.act = &p->act_min;
	job.x_step = 4 * p->stride_w * p->channels;
	job.out_step = 4 * p->channels;
	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			for (ox = 0; ox < p->out_w;) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				float *out = output + ((b * p->out_h + oy) * p->out_w + ox) * p->channels;
				int32_t pixels = 1, i, c;
				const float *x;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				if (fy1 <= fy0 || fx1 <= fx0) { /* the window lies in the padding: the biases */
					for (i = 0; i < whole; i++) {
						for (c = 0; c < GROUP; c++) {
							out[i * GROUP + c] = weights[i * GROUP * (1 + taps) + c];
						}
					}
					for (c = 0; c < p->channels - whole * GROUP; c++) {
						out[whole * GROUP + c] = tail_block[c];
					}
					ox++;
					continue;
				}
				x = input + ((b * p->in_h + iy0 + fy0 * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->channels;
				if (ox + 1 < p->out_w) {
					usmp_window_taps(ix0 + p->stride_w, p->dilation_w, p->filter_w, p->in_w, &nx0, &nx1);
					pixels = nx0 == fx0 && nx1 == fx1 ? 2 : 1;
				}
				if (whole > 0) {
					job.x = x;
					job.rows = fy1 - fy0;
					job.cols = fx1 - fx0;
					job.w_first = 4 * GROUP * (1 + fy0 * p->filter_w + fx0);
					job.w_skip = 4 * GROUP * (p->filter_w - (fx1 - fx0));
					job.out = out;
					(pixels == 2 ? two_pixels_asm : one_pixel_asm)(&job);
				}
				for (i = 0; i < pixels && p->channels > whole * GROUP; i++) {
					last_four(p, x + i * p->stride_w * p->channels + whole * GROUP, tail_block, fy0, fy1,
						  fx0, fx1, out + i * p->channels + whole * GROUP);
				}
				ox += pixels;
			}
		}
	}
}

#else

/* Without Helium's float lanes (the host tests): the FPU kernel's C. */
void usmp_helium_depthwise_f32(const struct usmp_fpu_depthwise_params *p, const float *input,
			       const float *weights, float *output)
{
	usmp_fpu_depthwise_f32(p, input, weights, output);
}

#endif
