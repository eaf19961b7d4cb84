/*
 * DEPTHWISE_CONV_2D in float32 on a single-precision FPU, depth multiplier 1:
 * eight channels of one output pixel at a time, their sums in registers. A
 * filter tap loads the eight input channels and their eight weights with two
 * load-multiples and makes eight fused multiply-adds; taps that fall in the
 * padding are skipped (usmp_kernels/fpu.h has the layout).
 */
#include "fpu_ops.h"

#include "usmp_kernels/conv.h"

#define GROUP USMP_FPU_DEPTHWISE_GROUP

/* One output pixel's channels [first, first + n) of a group (n 4 or 8): the group's biases, then its taps. */
static void group_c(const struct usmp_fpu_depthwise_params *p, const float *x, const float *block, int32_t n,
		    int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1, float *out)
{
	float sums[GROUP];
	int32_t c, fy, fx;

	for (c = 0; c < n; c++) {
		sums[c] = block[c];
	}
	for (fy = fy0; fy < fy1; fy++) {
		for (fx = fx0; fx < fx1; fx++) {
			const float *xi = x + ((fy - fy0) * p->dilation_h * p->in_w + (fx - fx0) * p->dilation_w) *
							p->channels;
			const float *wi = block + n + (fy * p->filter_w + fx) * n;

			for (c = 0; c < n; c++) {
				sums[c] = fpu_fma(sums[c], xi[c], wi[c]);
			}
		}
	}
	for (c = 0; c < n; c++) {
		out[c] = fpu_clamp(sums[c], p->act_min, p->act_max);
	}
}

#if USMP_FPU_NATIVE

#if USMP_FPU_V5
#define CLAMP1(s) "	vmaxnm.f32 " s ", " s ", s24\n	vminnm.f32 " s ", " s ", s25\n"
#else
#define CLAMP1(s)                                                                                            \
	"	vcmpe.f32 " s ", s24\n	vmrs APSR_nzcv, fpscr\n	it lt\n	vmovlt.f32 " s ", s24\n"            \
	"	vcmpe.f32 " s ", s25\n	vmrs APSR_nzcv, fpscr\n	it gt\n	vmovgt.f32 " s ", s25\n"
#endif

/* On FPv4, with act_min +0.0, the clamp in core registers (INT_CLAMP2) and the stores from there; else on to
 * the compares. r3, r4 and r7 are free once a group's sums are made. */
#if USMP_FPU_V5
#define RELU_CLAMP ""
#else
#define RELU_CLAMP                                                                                          \
	"	ldr	r12, [lr, #44]\n	ldr	r3, [r12]\n	cmp	r3, #0\n	bne	4f\n	ldr	r3, [r12, #4]\n"        \
	INT_CLAMP2("s0", "s1", "r4", "r7", "r3") "	strd	r4, r7, [r10], #8\n"                             \
	INT_CLAMP2("s2", "s3", "r4", "r7", "r3") "	strd	r4, r7, [r10], #8\n"                             \
	INT_CLAMP2("s4", "s5", "r4", "r7", "r3") "	strd	r4, r7, [r10], #8\n"                             \
	INT_CLAMP2("s6", "s7", "r4", "r7", "r3") "	strd	r4, r7, [r10], #8\n"                             \
	"	b	5f\n4:\n"
#endif

/* Every whole group of job->pixels output pixels side by side with the same taps: lr the job (whose x it
 * moves on a pixel at a time), r0 the group's input, r1 its block, r2 groups left, r3 rows left, r4 taps left
 * in the row, r5 the row's first tap, r6 the weights, r7 the tap, r8 the weights a row skips, r9 x_col, r10 the
 * output, r11 x_row; [sp] the pixels left. */
__attribute__((naked, noinline)) static void groups_asm(struct fpu_depthwise_job *job)
{
	(void)job;
	__asm volatile(
		"	push	{r4, r5, r6, r7, r8, r9, r10, r11, lr}\n"
		"	vpush	{s16-s25}\n"
		"	sub	sp, sp, #8\n"
		"	mov	lr, r0\n"
		"	ldr	r3, [lr, #56]\n"
		"	str	r3, [sp]\n"
		"	ldm	lr, {r0, r1, r2}\n"
		"	ldrd	r9, r11, [lr, #20]\n"
		"	ldr	r8, [lr, #32]\n"
		"	ldr	r10, [lr, #40]\n"
		"	ldr	r12, [lr, #44]\n"
		"	vldmia	r12, {s24-s25}\n"
		"1:	vldmia	r1, {s0-s7}\n"
		"	ldr	r6, [lr, #28]\n"
		"	add	r6, r6, r1\n"
		"	mov	r5, r0\n"
		"	ldr	r3, [lr, #12]\n"
		"2:	mov	r7, r5\n"
		"	ldr	r4, [lr, #16]\n"
		"3:	vldmia	r7, {s8-s15}\n"
		"	vldmia	r6!, {s16-s23}\n"
		"	add	r7, r7, r9\n"
		"	vfma.f32 s0, s8, s16\n"
		"	vfma.f32 s1, s9, s17\n"
		"	vfma.f32 s2, s10, s18\n"
		"	vfma.f32 s3, s11, s19\n"
		"	vfma.f32 s4, s12, s20\n"
		"	vfma.f32 s5, s13, s21\n"
		"	vfma.f32 s6, s14, s22\n"
		"	vfma.f32 s7, s15, s23\n"
		"	subs	r4, r4, #1\n"
		"	bne	3b\n"
		"	add	r6, r6, r8\n"
		"	add	r5, r5, r11\n"
		"	subs	r3, r3, #1\n"
		"	bne	2b\n"
		RELU_CLAMP
		CLAMP1("s0") CLAMP1("s1") CLAMP1("s2") CLAMP1("s3")
		CLAMP1("s4") CLAMP1("s5") CLAMP1("s6") CLAMP1("s7")
		"	vstmia	r10!, {s0-s7}\n"
		"5:\n"
		"	adds	r0, r0, #32\n"
		"	ldr	r12, [lr, #36]\n"
		"	add	r1, r1, r12\n"
		"	subs	r2, r2, #1\n"
		"	bne	1b\n"
		"	ldm	lr, {r0, r1, r2}\n"
		"	ldr	r12, [sp]\n"
		"	ldr	r3, [lr, #48]\n"
		"	subs	r12, r12, #1\n"
		"	add	r3, r3, r0\n"
		"	str	r3, [lr]\n"
		"	mov	r0, r3\n"
		"	str	r12, [sp]\n"
		"	bne	1b\n"
		"	add	sp, sp, #8\n"
		"	vpop	{s16-s25}\n"
		"	pop	{r4, r5, r6, r7, r8, r9, r10, r11, pc}\n");
}
#endif

/* The last output column whose window lies inside the input's columns (-1: none). */
static int32_t last_inner_column(const struct usmp_fpu_depthwise_params *p)
{
	const int32_t reach = p->in_w - 1 - (p->filter_w - 1) * p->dilation_w + p->pad_left;

	return reach < 0 ? -1 : (reach / p->stride_w < p->out_w - 1 ? reach / p->stride_w : p->out_w - 1);
}

void usmp_fpu_depthwise_f32(const struct usmp_fpu_depthwise_params *p, const float *input, const float *weights,
			    float *output)
{
	const int32_t taps = p->filter_h * p->filter_w;
	const int32_t whole = p->channels / GROUP;
	const int32_t tail = p->channels - whole * GROUP;
	const float *tail_block = weights + whole * GROUP * (1 + taps);
	const int32_t last_inner = last_inner_column(p);
	int32_t b, oy, ox, g, fy0, fy1, fx0, fx1, run;

	for (b = 0; b < p->batches; b++) {
		for (oy = 0; oy < p->out_h; oy++) {
			const int32_t iy0 = oy * p->stride_h - p->pad_top;

			usmp_window_taps(iy0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
			for (ox = 0; ox < p->out_w; ox += run) {
				const int32_t ix0 = ox * p->stride_w - p->pad_left;
				int32_t rows = fy1 - fy0, first_row = fy0;
				const float *x;

				usmp_window_taps(ix0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
				if (rows <= 0 || fx1 <= fx0) { /* the window lies in the padding: the biases */
					rows = first_row = fx0 = fx1 = 0;
				}
				x = input + ((b * p->in_h + iy0 + first_row * p->dilation_h) * p->in_w + ix0 +
					     fx0 * p->dilation_w) * p->channels;
				/* the columns whose windows lie inside the input, one run (without a last group of 4) */
				run = tail == 0 && fx1 - fx0 == p->filter_w ? last_inner - ox + 1 : 1;
				g = 0;
#if USMP_FPU_NATIVE
				if (whole > 0 && rows > 0) {
					struct fpu_depthwise_job job = {
						x, weights, whole, rows, fx1 - fx0,
						4 * p->dilation_w * p->channels, 4 * p->dilation_h * p->in_w * p->channels,
						4 * (GROUP + (first_row * p->filter_w + fx0) * GROUP),
						4 * GROUP * (p->filter_w - (fx1 - fx0)), 4 * GROUP * (1 + taps), output,
						&p->act_min, 4 * p->stride_w * p->channels, 0, run };

					groups_asm(&job);
					g = whole;
				}
#endif
				for (; g < whole; g++) {
					group_c(p, x + g * GROUP, weights + g * GROUP * (1 + taps), GROUP, first_row,
						first_row + rows, fx0, fx1, output + g * GROUP);
				}
				if (tail) {
					group_c(p, x + whole * GROUP, tail_block, tail, first_row, first_row + rows, fx0, fx1,
						output + whole * GROUP);
				}
#if USMP_FPU_NATIVE
				if (whole > 0 && rows > 0) {
					output += run * p->channels;
					continue;
				}
#endif
				run = 1; /* the C path takes one column */
				output += p->channels;
			}
		}
	}
}
