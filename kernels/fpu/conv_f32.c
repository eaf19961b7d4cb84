/*
 * CONV_2D and FULLY_CONNECTED in float32 on a single-precision FPU: two
 * output pixels (columns) against four output channels at a time, the eight
 * sums in registers. A step takes four taps of both columns and the 4 x 4
 * weights with three load-multiples and makes 32 fused multiply-adds, so a
 * MAC costs little more than its VFMA (usmp_kernels/fpu.h has the layout).
 */
#include "fpu_ops.h"

struct pair_job {
	const float *a;       /* first column */
	const float *b;       /* second column (the first again for a lone pixel) */
	const float *weights; /* the first block */
	int32_t blocks;       /* whole blocks of 4 output channels */
	int32_t quads;        /* depth / 4 */
	float *out_a;
	float *out_b;
	const float *act;     /* act_min, act_max */
};

/* One block: 4 biases and depth rows of 4 weights against both columns, clamped, stored (n channels). */
static void pair_block_c(const float *a, const float *b, const float *w, int32_t quads, float *out_a, float *out_b,
			 int32_t n, float act_min, float act_max)
{
	float sa[USMP_FPU_CONV_BLOCK], sb[USMP_FPU_CONV_BLOCK];
	int32_t k, c;

	for (c = 0; c < USMP_FPU_CONV_BLOCK; c++) {
		sa[c] = sb[c] = w[c];
	}
	w += USMP_FPU_CONV_BLOCK;
	for (k = 0; k < 4 * quads; k++) {
		for (c = 0; c < USMP_FPU_CONV_BLOCK; c++) {
			sa[c] = fpu_fma(sa[c], a[k], w[c]);
			sb[c] = fpu_fma(sb[c], b[k], w[c]);
		}
		w += USMP_FPU_CONV_BLOCK;
	}
	for (c = 0; c < n; c++) {
		out_a[c] = fpu_clamp(sa[c], act_min, act_max);
		out_b[c] = fpu_clamp(sb[c], act_min, act_max);
	}
}

#if USMP_FPU_NATIVE
/* The clamp of s0-s7 by s8 (act_min) and s9 (act_max): one VMAXNM and one VMINNM each on FPv5, compares
 * on the M4's FPv4. */
#if USMP_FPU_V5
#define CLAMP1(s) "	vmaxnm.f32 " s ", " s ", s8\n	vminnm.f32 " s ", " s ", s9\n"
#else
#define CLAMP1(s)                                                                                            \
	"	vcmpe.f32 " s ", s8\n	vmrs APSR_nzcv, fpscr\n	it lt\n	vmovlt.f32 " s ", s8\n"             \
	"	vcmpe.f32 " s ", s9\n	vmrs APSR_nzcv, fpscr\n	it gt\n	vmovgt.f32 " s ", s9\n"
#endif
/* On FPv4, with act_min +0.0, the clamp in core registers (INT_CLAMP2) and the stores from there; else on to
 * the compares. r3, r8 and r9 are free once a block's sums are made. */
#if USMP_FPU_V5
#define RELU_CLAMP_PAIR ""
#define RELU_CLAMP_COLUMN ""
#else
#define RELU_ENTRY "	ldr	r3, [r12]\n	cmp	r3, #0\n	bne	4f\n	ldr	r3, [r12, #4]\n"
#define RELU_CLAMP_PAIR                                                                                     \
	RELU_ENTRY                                                                                          \
	INT_CLAMP2("s0", "s1", "r8", "r9", "r3") "	strd	r8, r9, [r5], #8\n"                              \
	INT_CLAMP2("s2", "s3", "r8", "r9", "r3") "	strd	r8, r9, [r5], #8\n"                              \
	INT_CLAMP2("s4", "s5", "r8", "r9", "r3") "	strd	r8, r9, [r6], #8\n"                              \
	INT_CLAMP2("s6", "s7", "r8", "r9", "r3") "	strd	r8, r9, [r6], #8\n"                              \
	"	b	5f\n4:\n"
#define RELU_CLAMP_COLUMN                                                                                   \
	RELU_ENTRY                                                                                          \
	INT_CLAMP2("s0", "s1", "r8", "r9", "r3") "	strd	r8, r9, [r5], #8\n"                              \
	INT_CLAMP2("s2", "s3", "r8", "r9", "r3") "	strd	r8, r9, [r5], #8\n"                              \
	"	b	5f\n4:\n"
#endif
#define FMA4(x, y, w0, w1, w2, w3)                                                                          \
	"	vfma.f32 s0, " w0 ", " x "\n	vfma.f32 s1, " w1 ", " x "\n"                                       \
	"	vfma.f32 s2, " w2 ", " x "\n	vfma.f32 s3, " w3 ", " x "\n"                                       \
	"	vfma.f32 s4, " w0 ", " y "\n	vfma.f32 s5, " w1 ", " y "\n"                                       \
	"	vfma.f32 s6, " w2 ", " y "\n	vfma.f32 s7, " w3 ", " y "\n"

/* The prologue and epilogue of the loops over blocks: r0-r1 the columns, r2 the weights, r4 blocks left,
 * r5-r6 the outputs, r7 quads, r12 the activation bounds. */
#define BLOCKS_ENTRY                                 \
	"	push	{r4, r5, r6, r7, r8, r9, lr}\n"     \
	"	vpush	{s16-s31}\n"                         \
	"	ldr	r12, [r0, #28]\n"                     \
	"	ldrd	r4, r7, [r0, #12]\n"                 \
	"	ldrd	r5, r6, [r0, #20]\n"                 \
	"	ldm	r0, {r0, r1, r2}\n"
#define BLOCKS_EXIT                                  \
	"	subs	r4, r4, #1\n"                        \
	"	bne	1b\n"                                 \
	"	vpop	{s16-s31}\n"                         \
	"	pop	{r4, r5, r6, r7, r8, r9, pc}\n"

/* Every whole block against both columns: r3 quads left in the block, r8-r9 the columns' read pointers. */
__attribute__((naked, noinline)) static void pair_blocks_asm(const struct pair_job *job)
{
	(void)job;
	__asm volatile(
		BLOCKS_ENTRY
		"1:	vldmia	r2, {s4-s7}\n"
		"	vldmia	r2!, {s0-s3}\n"
		"	mov	r8, r0\n"
		"	mov	r9, r1\n"
		"	mov	r3, r7\n"
		"2:	vldmia	r8!, {s8-s11}\n"
		"	vldmia	r9!, {s12-s15}\n"
		"	vldmia	r2!, {s16-s31}\n"
		FMA4("s8", "s12", "s16", "s17", "s18", "s19")
		FMA4("s9", "s13", "s20", "s21", "s22", "s23")
		FMA4("s10", "s14", "s24", "s25", "s26", "s27")
		FMA4("s11", "s15", "s28", "s29", "s30", "s31")
		"	subs	r3, r3, #1\n"
		"	bne	2b\n"
		RELU_CLAMP_PAIR
		"	vldmia	r12, {s8-s9}\n"
		CLAMP1("s0") CLAMP1("s1") CLAMP1("s2") CLAMP1("s3")
		CLAMP1("s4") CLAMP1("s5") CLAMP1("s6") CLAMP1("s7")
		"	vstmia	r5!, {s0-s3}\n"
		"	vstmia	r6!, {s4-s7}\n"
		"5:\n"
		BLOCKS_EXIT);
}

/* The same for one column (a band's or an image's odd last pixel), four sums in s0-s3. */
#define FMA1(x, w0, w1, w2, w3)                                                                             \
	"	vfma.f32 s0, " w0 ", " x "\n	vfma.f32 s1, " w1 ", " x "\n"                                       \
	"	vfma.f32 s2, " w2 ", " x "\n	vfma.f32 s3, " w3 ", " x "\n"

__attribute__((naked, noinline)) static void column_blocks_asm(const struct pair_job *job)
{
	(void)job;
	__asm volatile(
		BLOCKS_ENTRY
		"1:	vldmia	r2!, {s0-s3}\n"
		"	mov	r8, r0\n"
		"	mov	r3, r7\n"
		"2:	vldmia	r8!, {s8-s11}\n"
		"	vldmia	r2!, {s16-s31}\n"
		FMA1("s8", "s16", "s17", "s18", "s19")
		FMA1("s9", "s20", "s21", "s22", "s23")
		FMA1("s10", "s24", "s25", "s26", "s27")
		FMA1("s11", "s28", "s29", "s30", "s31")
		"	subs	r3, r3, #1\n"
		"	bne	2b\n"
		RELU_CLAMP_COLUMN
		"	vldmia	r12, {s8-s9}\n"
		CLAMP1("s0") CLAMP1("s1") CLAMP1("s2") CLAMP1("s3")
		"	vstmia	r5!, {s0-s3}\n"
		"5:\n"
		BLOCKS_EXIT);
}
#endif

/* Both columns against every output channel, stored at out_a and out_b; a lone pixel (b == a) only once. */
static void pair_times_filter(const struct usmp_fpu_conv_params *p, const float *a, const float *b,
			      const float *weights, float *out_a, float *out_b)
{
	const int32_t quads = p->depth / 4;
	const int32_t block_floats = USMP_FPU_CONV_BLOCK * (1 + p->depth);
	int32_t blk = 0;

#if USMP_FPU_NATIVE
	const int32_t whole = p->out_ch / USMP_FPU_CONV_BLOCK;
	const int32_t rest = p->out_ch - whole * USMP_FPU_CONV_BLOCK;
	void (*blocks)(const struct pair_job *) = b == a ? column_blocks_asm : pair_blocks_asm;

	if (quads > 0) {
		if (whole > 0) {
			const struct pair_job job = { a, b, weights, whole, quads, out_a, out_b, &p->act_min };

			blocks(&job);
		}
		if (rest > 0) { /* the last block's channels through a buffer */
			float sums[2 * USMP_FPU_CONV_BLOCK];
			const struct pair_job job = { a, b, weights + whole * block_floats, 1, quads, sums,
						      sums + USMP_FPU_CONV_BLOCK, &p->act_min };
			int32_t c;

			blocks(&job);
			for (c = 0; c < rest; c++) {
				out_a[whole * USMP_FPU_CONV_BLOCK + c] = sums[c];
				out_b[whole * USMP_FPU_CONV_BLOCK + c] = sums[(b == a ? 0 : USMP_FPU_CONV_BLOCK) + c];
			}
		}
		return;
	}
#endif
	for (; blk * USMP_FPU_CONV_BLOCK < p->out_ch; blk++) {
		const int32_t first = blk * USMP_FPU_CONV_BLOCK;
		const int32_t n = p->out_ch - first < USMP_FPU_CONV_BLOCK ? p->out_ch - first : USMP_FPU_CONV_BLOCK;

		pair_block_c(a, b, weights + blk * block_floats, quads, out_a + first, out_b + first, n, p->act_min,
			     p->act_max);
	}
}

void usmp_fpu_conv_f32(const struct usmp_fpu_conv_params *p, const float *input, const float *weights,
		       float *columns, float *output)
{
	const int32_t per_image = p->out_h * p->out_w;
	const int32_t pixels = p->batches * per_image;
	int32_t px;

	for (px = 0; px < pixels; px += 2) {
		const int32_t last = px + 1 < pixels ? px + 1 : px; /* a lone last pixel: b == a */
		const float *a;
		const float *b;

		if (p->direct) {
			a = input + px * p->in_ch;
			b = input + last * p->in_ch;
		} else {
			a = b = columns;
			fpu_window_column(p, input, px / per_image, px % per_image / p->out_w, px % p->out_w, columns);
			if (last != px) {
				b = columns + p->depth;
				fpu_window_column(p, input, last / per_image, last % per_image / p->out_w, last % p->out_w,
						  columns + p->depth);
			}
		}
		pair_times_filter(p, a, b, weights, output + px * p->out_ch, output + last * p->out_ch);
	}
}
