/* Periodic stencils on batches of 2D grids, fused with pointwise powers of their inputs.
 *
 * A GsStencil computes, in one pass over its inputs,
 *   y(i, j) = sum_t sum_{dx, dy} K_t(dx, dy) x_{in(t)}(i + dx, j + dy)^{p(t)}
 * on `batch` grids of nx x ny points (x fastest: point (i, j) of grid b at b nx ny + j nx + i),
 * with indices taken modulo nx and ny (periodic). Each term t names an input (0 .. inputs - 1), a
 * power p = 1, 2 or 3 and a weight array K of radius at most GS_STENCIL_MAX_RADIUS along each axis.
 * Terms with the same input and power are summed into one when they are added, so the right-hand
 * side of a semi-implicit scheme (a linear combination of differences of the state and of a cubic
 * of it, as in Cahn-Hilliard: D lap (c^3 - c)) is one call. A 1D problem is a grid with ny = 1
 * (or, for an ensemble of 1D runs, ny = members and terms of radius 0 along y).
 *
 * Combinations (GsStencilSetCombination): input numbers past the stencil's inputs can stand for a
 * linear combination of them, x_c^p meaning sum_j a_j x_j^p, so that weights two inputs share up
 * to a factor are applied once (a multistep scheme's extrapolated state 2 c - cprev and
 * nonlinearity 2 f(c) - f(cprev)): half the multiply-adds of the same terms added per input.
 *
 * Arithmetic is in the vectors' type (weights and coefficients rounded to it). Each point sums
 * the terms of the centre weight alone first, then those that reach beyond the point, each group
 * by input (combinations after the inputs), then by power, and each term's nonzero weights column
 * by column (dx, then dy, ascending; in conservative form, see GsStencilSetTermSum, the sum times
 * the centre value first and the centre weight left out); a combination sums its inputs in order.
 * The back ends agree up to the rounding of fused multiply-adds. */
#ifndef GPUSOLVE_STENCIL_H
#define GPUSOLVE_STENCIL_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsStencil_s *GsStencil;

#define GS_STENCIL_MAX_RADIUS 2 /* along each axis */
#define GS_STENCIL_MAX_INPUTS 4
#define GS_STENCIL_MAX_TERMS 8 /* distinct (input, power) pairs */
#define GS_STENCIL_MAX_COMBINATIONS 2

typedef struct {
  GsInt nx, ny;  /* points along x (fastest) and y: >= 1 each */
  GsInt batch;   /* grids one after another: >= 1 (0 means 1) */
  int inputs;    /* input vectors of GsStencilApply: 1 .. GS_STENCIL_MAX_INPUTS */
  GsDataType dt; /* GS_DOUBLE or GS_FLOAT */
} GsStencilDesc;

/* Create a stencil with no terms (it computes y = 0 until terms are added). Option
 * -stencil_wide_index 1: GPU kernels index grids in 64 bits even where a grid's nx ny fits 32
 * (as they do for larger grids), for testing; -stencil_tiles_per_block N (N >= 1; 0, the default:
 * the back end chooses): tiles along y each GPU block takes in turn; -stencil_shapes 0: never the
 * kernels a back end compiles for particular shapes (a GPU's for the Cahn-Hilliard and
 * hyperdiffusion right-hand sides; they compute the same bits as its general kernel, with fewer
 * instructions), for testing and benchmarks. */
int GsStencilCreate(GsContext ctx, const GsStencilDesc *desc, GsStencil *st);
/* Free the stencil and set *st = NULL; safe on NULL and twice. */
int GsStencilDestroy(GsStencil *st);

/* Define input number `input` (inputs <= input < inputs + GS_STENCIL_MAX_COMBINATIONS) as the
 * combination of the stencil's inputs with coefficients coeffs[0 .. inputs - 1]: a term added on
 * it with power p applies its weights to sum_j coeffs[j] x_j^p (the power of each input, then the
 * sum), as if it had been added on every x_j scaled by coeffs[j]. Define it before adding terms on
 * it; defining it again changes what those terms apply to. Coefficients must be finite. */
int GsStencilSetCombination(GsStencil st, int input, const double *coeffs);

/* Add scale * K applied to x_input^power. K holds (2 ry + 1) rows of (2 rx + 1) weights
 * (row-major): K[(dy + ry) (2 rx + 1) + dx + rx] weighs the point (i + dx, j + dy). The radii are
 * at most GS_STENCIL_MAX_RADIUS, and 2 rx + 1 <= nx, 2 ry + 1 <= ny, so that no point is reached
 * twice by wrapping. Weights must be finite. */
int GsStencilAddTerm(GsStencil st, int input, int power, int rx, int ry, const double *weights,
                     double scale);
/* Add scale * (kx along x) (ky along y) applied to x_input^power: the tensor product of the 1D
 * weights kx[dx + rx] (2 rx + 1 entries) and ky[dy + ry] (2 ry + 1). ky NULL (with ry = 0) means
 * the weight 1: a difference along x only. */
int GsStencilAddTensorTerm(GsStencil st, int input, int power, int rx, const double *kx, int ry,
                           const double *ky, double scale);

/* Declare that the weights of (input, power) sum to `sum` in exact arithmetic (1 for an identity
 * plus differences, 0 for a difference operator such as a Laplacian). The term is then applied in
 * conservative form, sum x_p^power + sum_{k != 0} w_k (x_{p+k}^power - x_p^power): its centre
 * weight is implied by `sum`, and the total of y over a grid is `sum` times the total of the
 * input to rounding that does not build up, however large the weights (a Cahn-Hilliard step's
 * splitting term has weights of order 1e3 whose rounded sums would otherwise drift the mass by
 * about 1e-14 of itself per step). Adding weights later keeps the declaration. */
int GsStencilSetTermSum(GsStencil st, int input, int power, double sum);

/* y = the stencil applied to x[0 .. inputs - 1]: vectors of nx ny batch entries of the stencil's
 * type and context. y is only written, and must not be one of the inputs (inputs may repeat). */
int GsStencilApply(GsStencil st, const GsVec x[], GsVec y);

/* The kernel the last GsStencilApply ran: a static string, "none" before the first ("rows" on
 * the CPU; on a GPU "tile" for the general kernel, "tile-wide" with 64-bit indices, or the name
 * of a shape's kernel, e.g. "shape-12+4"). For tests and benchmarks. */
int GsStencilGetKernel(GsStencil st, const char **name);

/* The weights added for (input, power), summed: *rx, *ry and a copy into weights (room for
 * (2 GS_STENCIL_MAX_RADIUS + 1)^2 entries, laid out as in GsStencilAddTerm with the returned
 * radii; with a declared sum the centre weight shown is the added one, which the conservative
 * form replaces by the sum); radii -1 and nothing copied when the stencil has no such term. */
int GsStencilGetTerm(GsStencil st, int input, int power, int *rx, int *ry, double *weights);

#ifdef __cplusplus
}
#endif
#endif
