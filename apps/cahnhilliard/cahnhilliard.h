/* Cahn-Hilliard dC/dt = D d2/dx2 (C^3 - C - gamma d2C/dx2) on a periodic domain (0, L), 1D,
 * semi-implicit: the nonlinear term explicit, the hyperdiffusion implicit, for an ensemble of
 * independent runs advanced together.
 *
 * Order 1 (SBDF1): (1 + s D4) C^{n+1} = C^n + dt D D2 f(C^n), f(C) = C^3 - C (with a linear
 * stabilization S: (1 + s D4 - S dt D D2) C^{n+1} = C^n + dt D D2 (f(C^n) - S C^n));
 * order 2 (SBDF2, after one SBDF1 step):
 *   (3/2 + s D4) C^{n+1} = 2 C^n - C^{n-1} / 2 + dt D D2 (2 f(C^n) - f(C^{n-1})),
 * with s = D gamma dt, D2 and D4 the centred second and fourth differences (periodic), so each step
 * is one batch of periodic pentadiagonal solves with a matrix shared by every member (factored
 * once), after one pass that builds the whole right-hand side (a GsStencil of C^n and C^{n-1}):
 * public API only.
 * Every row of every operator sums to the same as the identity's part, so the mean of each member
 * is kept to rounding; the matrices' rows do so exactly in the solver's precision (their off-
 * diagonals moved by a few units of rounding: GsAppExactRowSum), since rows rounded one entry at a
 * time would move the mean by about a eps per step, a = D gamma dt / dx^4.
 *
 * In 2D (ny > 1) the grid is n x ny points with spacing L / n in both directions, point (i, j) at
 * j n + i, and the implicit operator is split (ADI):
 *   (1 + s Dx4)(1 + s Dy4) C^{n+1} = C^n + dt D (Dxx + Dyy) f(C^n) - 2 s Dxx Dyy C^n
 *                                    + s^2 Dx4 Dy4 C^n
 * (SBDF2 likewise, with 3/2 (1 + 2s/3 Dx4)(1 + 2s/3 Dy4) and the explicit terms extrapolated), each
 * factor one batch of periodic pentadiagonal solves along one axis: along x the rows (contiguous
 * layout), along y the columns in place (interleaved layout), so the field is never transposed.
 * The last term cancels the factors' product term to O(dt^2) per step, so SBDF2 stays second
 * order; it and the explicit cross term leave every Fourier mode's factor below 1 in size.
 *
 * The state is a vector (of the solver's precision) of n * ny * ensemble entries, member e's point
 * at e * n * ny + the point's index (2D: one member). */
#ifndef GPUSOLVE_APPS_CAHNHILLIARD_H
#define GPUSOLVE_APPS_CAHNHILLIARD_H

#include <gpusolve.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsCahnHilliard_s *GsCahnHilliard;

typedef struct {
  GsInt n;        /* grid points per member, >= 5 */
  GsInt ensemble; /* members, >= 1 */
  double length;  /* L > 0 */
  double D;       /* mobility > 0 */
  double gamma;   /* interface parameter > 0 */
  double dt;      /* time step > 0 */
  int order;      /* 1 (SBDF1) or 2 (SBDF2) */
  GsInt ny;       /* 0 or 1: 1D; > 1 (and >= 5): 2D grid of n x ny points, ensemble 1 */
  /* Optional (1D): per-member parameters, ensemble entries each, copied at create; NULL means
   * `gamma` / `D` for every member. An ensemble of different parameters gets one matrix per
   * member instead of a shared one. */
  const double *gamma_member, *D_member;
  /* Linear stabilization S >= 0 (0: none): S D lap C is taken out of the explicit term and made
   * implicit, which lifts the explicit term's time-step limit (S = 2 covers |C| <= 1: f' <= 2);
   * consistent, with a larger error constant. */
  double stabilize;
  /* GS_DOUBLE (the default, 0) or GS_FLOAT: the type of the state, the matrices and every pass
   * (half the bytes). In 2D the mass then drifts by about a eps per 1000 steps (a = D gamma dt /
   * dx^4, eps the float epsilon); GsCahnHilliardCreate refuses float 2D where a eps > 1e-4
   * (GS_ERR_ARG_OUTOFRANGE, naming the largest dt that fits). 1D steps, like 2D, solve for the
   * change (one more vector pass), which keeps a float member's mass to about 1e-6 over 500 steps
   * at a = 28 (solving for the new state moved it by 1e-5 per step through the rounding of the
   * float factors) and a double one's to about 1e-13 over 1000 steps at a = 3.5e3 (2e-10). */
  GsDataType precision;
} GsCahnHilliardDesc;

int GsCahnHilliardCreate(GsContext ctx, const GsCahnHilliardDesc *desc, GsCahnHilliard *ch);
int GsCahnHilliardDestroy(GsCahnHilliard *ch);
/* State in (n * ny * ensemble entries, double or float, converted to the solver's precision; a
 * non-finite entry is GS_ERR_NOT_FINITE naming the member and the point) or out; setting it
 * restarts the clock (and SBDF2's first step). */
int GsCahnHilliardSetState(GsCahnHilliard ch, GsVec c);
int GsCahnHilliardGetState(GsCahnHilliard ch, GsVec c);
/* Member e (every member when member < 0) to mean + amplitude u, u uniform in [-1, 1) from the
 * counter-based stream (seed + e, i): the same on every back end, and member e of an ensemble
 * equals a run alone seeded seed + e. */
int GsCahnHilliardSetRandom(GsCahnHilliard ch, GsInt member, double mean, double amplitude,
                            uint64_t seed);
/* Advance `steps` steps. Without stabilization the explicit nonlinear term makes the schemes
 * conditionally stable (2D SBDF2 on 128^2 points of (0, 2 pi)^2 with gamma 0.01 runs at dt 5e-4
 * and not at 1e-3; 2D SBDF1 and 1D both schemes at 1e-2); with S = 2 they run at 1e-2 and beyond.
 * A step whose field becomes non-finite is GS_ERR_NOT_FINITE naming the step and dt. */
int GsCahnHilliardStep(GsCahnHilliard ch, GsInt steps);
int GsCahnHilliardGetTime(GsCahnHilliard ch, double *t, GsInt *steps);
/* Diagnostics of one member: mass dx^d sum C, free energy dx^d sum [(C^2 - 1)^2 / 4 + gamma |D+
 * C|^2 / 2] (D+ the forward differences along each axis), minimum and maximum. Any pointer may be
 * NULL. */
int GsCahnHilliardDiagnostics(GsCahnHilliard ch, GsInt member, double *mass, double *energy,
                              double *cmin, double *cmax);

/* Characteristic domain size of one member: 2 pi / <k>, <k> the mean wave number weighted by the
 * structure factor S(k) = |FFT(C - mean)|^2 over the nonzero wave vectors (radially, |k|, in 2D).
 * It grows as the phases coarsen. A uniform field has no domains: *size = 0. */
int GsCahnHilliardDomainSize(GsCahnHilliard ch, GsInt member, double *size);

/* Checkpoints: everything the next step reads (the state, and for SBDF2 the previous state and
 * its f), the step count and the parameters, in a binary file with a header and a checksum, written
 * to path.tmp and renamed over path (a crash never leaves half a file under path). Loading into a
 * solver of the same parameters continues bit for bit; a missing file is GS_ERR_FILE_OPEN, a bad
 * header, other parameters, a short file or a wrong checksum GS_ERR_FILE_FORMAT naming the file
 * and what differs. */
int GsCahnHilliardSaveCheckpoint(GsCahnHilliard ch, const char *path);
int GsCahnHilliardLoadCheckpoint(GsCahnHilliard ch, const char *path);

#ifdef __cplusplus
}
#endif
#endif
