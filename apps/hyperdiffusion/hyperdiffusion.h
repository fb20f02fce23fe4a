/* Hyperdiffusion dC/dt = -g d^4C/dx^4 on a periodic domain (0, L), 1D, Crank-Nicolson in time and
 * centred differences in space, for an ensemble of independent runs advanced together.
 *
 * With sigma = g dt / (2 dx^4) each step solves the periodic pentadiagonal system
 *   (1 + 6 sigma) C_i - 4 sigma (C_{i-1} + C_{i+1}) + sigma (C_{i-2} + C_{i+2}) = (same with
 * -sigma)^n (the cuPentBatch seed's validation problem), solved for the change C^{n+1} - C^n
 * (delta form: the right-hand side -2 sigma D4 C^n, one stencil pass, then C^n += the change),
 * which keeps the rounding of the factors off the field. Every member shares the matrix: one
 * periodic pentadiagonal batch (contiguous layout, one system per member, factored once). Built
 * on the public API only (banded, stencil, vec).
 *
 * The state is a vector (of the solver's precision) of n * ensemble entries, member e's grid point
 * i at e * n + i (x_i = i L / n). The scheme conserves the mean of each member, and its Fourier
 * modes decay exactly as the discrete operator says (GsHyperdiffusionModeFactor), which the tests
 * use to separate the error in time from the error in space.
 *
 * In 2D (ny > 1), dC/dt = -g lap^2 C = -g (Dx4 + Dy4 + 2 Dxx Dyy) C on an n x ny grid (point (i, j)
 * at j n + i), Crank-Nicolson split by ADI, with the mixed term by a predictor and a corrector
 * (s = g dt / 2):
 *   (1 + s Dx4)(1 + s Dy4) P      = (1 - s Dx4)(1 - s Dy4) C^n - 4 s Dxx Dyy C^n,
 *   (1 + s Dx4)(1 + s Dy4) C^{n+1} = (1 - s Dx4)(1 - s Dy4) C^n - 2 s Dxx Dyy (C^n + P):
 * second order in time, and no Fourier mode grows for any dt (extrapolating the mixed term
 * instead makes strongly anisotropic modes grow). Each factor is one batch of periodic
 * pentadiagonal solves along rows (contiguous layout) or, in place, columns (interleaved); both
 * are solved for the changes, P - C^n and C^{n+1} - C^n, whose right-hand sides lose the s^2
 * terms; each is one stencil pass (GsStencil, conservative form), so a 2D step is seven passes
 * with the update.
 */
#ifndef GPUSOLVE_APPS_HYPERDIFFUSION_H
#define GPUSOLVE_APPS_HYPERDIFFUSION_H

#include <gpusolve.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsHyperdiffusion_s *GsHyperdiffusion;

typedef struct {
  GsInt n;        /* grid points per member, >= 5 */
  GsInt ensemble; /* members, >= 1 */
  double length;  /* L > 0 */
  double coeff;   /* g = gamma D > 0 */
  double dt;      /* time step > 0 */
  GsInt ny;       /* 0 or 1: 1D; > 1 (>= 5): 2D, n x ny points of spacing L / n, ensemble 1 */
  /* GS_DOUBLE (the default, 0) or GS_FLOAT: the type of the state, the bands and every pass (half
   * the bytes; the diagnostics read the state as doubles). Steps solve for the change, so the
   * rounding of the bands and their factors, about (1 + 12 sigma) FLT_EPSILON relative in float,
   * falls on each step's change rather than the field;
   * GsHyperdiffusionCreate refuses float where sigma eps > 1e-2 (GS_ERR_ARG_OUTOFRANGE, naming
   * the largest dt that fits), beyond which float results were wrong or grew. */
  GsDataType precision;
} GsHyperdiffusionDesc;

/* Create the solver (factors the shared matrix); the state starts at zero, time 0. Bad sizes or
 * parameters are GS_ERR_ARG_OUTOFRANGE naming the value, a precision other than GS_DOUBLE or
 * GS_FLOAT GS_ERR_ARG_TYPE. */
int GsHyperdiffusionCreate(GsContext ctx, const GsHyperdiffusionDesc *desc, GsHyperdiffusion *h);
int GsHyperdiffusionDestroy(GsHyperdiffusion *h);
/* Copy state c (n * ensemble entries, double or float, converted to the solver's precision) in and
 * reset the clock; a NaN or infinite entry is GS_ERR_NOT_FINITE naming the member and the grid
 * point. */
int GsHyperdiffusionSetState(GsHyperdiffusion h, GsVec c);
/* Member `member` (or every member when member < 0) to A cos(2 pi k x / L + phase); resets the
 * clock. */
int GsHyperdiffusionSetCosine(GsHyperdiffusion h, GsInt member, double amplitude, double k,
                              double phase);
/* 2D: the state to A cos(2 pi kx x / L) cos(2 pi ky y / L); resets the clock. */
int GsHyperdiffusionSetCosine2D(GsHyperdiffusion h, double amplitude, double kx, double ky);
/* 2D: the L2 errors (sqrt(dx^2 sum e^2)) at the current time against the exact solution of that
 * initial state, A exp(-g (kx'^2 + ky'^2)^2 t) cos cos (k' = 2 pi k / L), and against the
 * semi-discrete one, the same with k'^2 replaced by 4 sin^2(pi k / n) / dx^2. */
int GsHyperdiffusionCosineError2D(GsHyperdiffusion h, double amplitude, double kx, double ky,
                                  double *err_exact, double *err_time);
/* Copy the state out (n * ensemble entries, 2D n * ny, into a double or float vector). */
int GsHyperdiffusionGetState(GsHyperdiffusion h, GsVec c);
/* Advance `steps` steps. */
int GsHyperdiffusionStep(GsHyperdiffusion h, GsInt steps);
/* Simulated time and steps taken since the state was set. Either pointer may be NULL. */
int GsHyperdiffusionGetTime(GsHyperdiffusion h, double *t, GsInt *steps);
/* What one step does to the Fourier mode of wave number k (k periods over L): the factor
 * (1 - sigma s) / (1 + sigma s) with s = 16 sin^4(pi k / n), and the exact one, exp(-g (2 pi k /
 * L)^4 dt). Either pointer may be NULL. */
int GsHyperdiffusionModeFactor(GsHyperdiffusion h, double k, double *scheme, double *exact);

/* L2 errors (sqrt(dx sum e_i^2)) of member `member` at the current time against the exact solution
 * of the cosine A cos(2 pi k x / L + phase) it would have started from, A exp(-g (2 pi k / L)^4 t)
 * cos(...), and against the exact solution of the semi-discrete system (the spatial scheme
 * integrated exactly in time), A exp(-g 16 sin^4(pi k / n) t / dx^4) cos(...): the first measures
 * the whole error, the second the error in time alone. Either pointer may be NULL. */
int GsHyperdiffusionCosineError(GsHyperdiffusion h, GsInt member, double amplitude, double k,
                                double phase, double *err_exact, double *err_time);
#ifdef __cplusplus
}
#endif
#endif
