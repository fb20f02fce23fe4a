/* Krylov solvers (CG, BiCGStab, GMRES(m)) with a Jacobi preconditioner, written once against
 * vectors and an operator (a GsMat, or a user's matrix-free product), so they run on every back
 * end. Convergence follows PETSc's default test: ||r_k|| <= max(rtol ||b||, atol) with r the
 * unpreconditioned residual b - A x (BiCGStab and GMRES precondition on the right unless told
 * otherwise, CG is PCG),
 * divergence when ||r_k|| > dtol ||b|| or after max_it iterations; a failure to converge is a
 * result (GsKspGetConvergedReason), not an error. */
#ifndef GPUSOLVE_KSP_H
#define GPUSOLVE_KSP_H

#include <stdio.h>

#include "mat.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsKsp_s *GsKsp;

typedef enum { GS_KSP_CG = 0, GS_KSP_BICGSTAB = 1, GS_KSP_GMRES = 2 } GsKspType;
typedef enum { GS_PC_NONE = 0, GS_PC_JACOBI = 1 } GsPcType;
/* Where BiCGStab and GMRES apply the preconditioner. Right (the default here; PETSc's is left):
 * they iterate on A M^-1 and test the true residual ||b - A x|| against rtol ||b||. Left: on
 * M^-1 A, testing the preconditioned residual ||M^-1 (b - A x)|| against rtol ||M^-1 b||. CG is
 * always PCG (the side does not apply). */
typedef enum { GS_PC_RIGHT = 0, GS_PC_LEFT = 1 } GsPcSide;

/* Why a solve stopped (PETSc's values): positive converged, negative diverged. */
typedef enum {
  GS_CONVERGED_ITERATING = 0,
  GS_CONVERGED_RTOL = 2,
  GS_CONVERGED_ATOL = 3,
  GS_DIVERGED_ITS = -3,
  GS_DIVERGED_DTOL = -4,
  GS_DIVERGED_BREAKDOWN = -5,
  GS_DIVERGED_INDEFINITE_PC = -8,
  GS_DIVERGED_NANORINF = -9,
  GS_DIVERGED_INDEFINITE_MAT = -10
} GsConvergedReason;

/* "CONVERGED_RTOL", "DIVERGED_ITS", ... (PETSc's names); "UNKNOWN" otherwise. */
const char *GsConvergedReasonName(GsConvergedReason reason);

/* A matrix-free operator: y = A x for vectors of n entries (return 0 or a GsErrorCode). diag, if
 * not NULL, fills d with A's diagonal (needed by Jacobi). */
typedef int (*GsOperatorMult)(void *user, GsVec x, GsVec y);
typedef int (*GsOperatorDiag)(void *user, GsVec d);

int GsKspCreate(GsContext ctx, GsKsp *ksp);
int GsKspDestroy(GsKsp *ksp);
/* The operator: a square matrix (kept by reference: destroy the solver first). */
int GsKspSetOperator(GsKsp ksp, GsMat A);
int GsKspSetOperatorShell(GsKsp ksp, GsInt n, GsOperatorMult mult, GsOperatorDiag diag, void *user);
int GsKspSetType(GsKsp ksp, GsKspType type);
int GsKspSetPcType(GsKsp ksp, GsPcType type);
/* Defaults: rtol 1e-5, atol 1e-50, dtol 1e5, max_it 10000 (PETSc's). */
int GsKspSetTolerances(GsKsp ksp, double rtol, double atol, double dtol, GsInt max_it);
int GsKspSetPcSide(GsKsp ksp, GsPcSide side);
/* GMRES restart length (default 30). */
int GsKspSetGmresRestart(GsKsp ksp, int restart);
/* When GMRES's classical Gram-Schmidt orthogonalises a new vector a second time (PETSc's
 * -ksp_gmres_cgs_refinement_type): ALWAYS (the default here, CGS2: two passes of one multi-dot and
 * one multi-AXPY each), IFNEEDED (a second pass only when the first took the vector's norm below
 * 1/sqrt(2) of what it was: "twice is enough"), NEVER (one pass, PETSc's default; loses
 * orthogonality on ill-conditioned problems). */
typedef enum {
  GS_KSP_CGS_REFINE_ALWAYS = 0,
  GS_KSP_CGS_REFINE_IFNEEDED = 1,
  GS_KSP_CGS_REFINE_NEVER = 2
} GsKspCGSRefinement;
int GsKspSetGmresCGSRefinement(GsKsp ksp, GsKspCGSRefinement type);
/* Use x as the initial guess (default: x0 = 0, x's values ignored). */
int GsKspSetInitialGuessNonzero(GsKsp ksp, int flag);
/* What the relative tolerance and the divergence tolerance multiply (PETSc's rnorm0, the test
 * being ||r|| <= max(rtol rnorm0, atol) and divergence ||r|| >= dtol rnorm0; r and b
 * preconditioned on the left where the method tests that norm):
 * B (the default, PETSc's): ||b||, or ||r0|| where b = 0 and x0 is given;
 * R0 (-ksp_converged_use_initial_residual_norm): ||r0|| = ||b - A x0||;
 * MIN (-ksp_converged_use_min_initial_residual_norm): min(||b||, ||r0||).
 * With a zero initial guess r0 = b and the three agree. */
typedef enum { GS_KSP_RNORM0_B = 0, GS_KSP_RNORM0_R0 = 1, GS_KSP_RNORM0_MIN = 2 } GsKspRnorm0;
int GsKspSetConvergedRnorm0(GsKsp ksp, GsKspRnorm0 ref);
/* Iterations before a tolerance may stop the solve (default 0; -ksp_min_it; PETSc's
 * KSPSetMinimumIterations). A non-finite norm, the divergence test and max_it still stop it. */
int GsKspSetMinIterations(GsKsp ksp, GsInt min_it);
/* Print "k KSP Residual norm r" every iteration (6 significant digits) to f (NULL: stdout);
 * true_residual also prints ||b - A x|| and its ratio to ||b||, at the cost of a product. */
int GsKspSetMonitor(GsKsp ksp, int on, int true_residual, FILE *f);
/* A monitor of the caller's: called with each residual norm the convergence test sees (its = 0
 * for the initial residual, then once per iteration; the same values as the residual history),
 * after the printing monitors. x is not current inside it for GMRES, which forms its solution at
 * restarts and at the end; it must not start a solve with the same solver. A non-zero return
 * stops the solve: GsKspSolve returns that code, with a message naming the iteration. */
typedef int (*GsKspMonitorFn)(GsKsp ksp, GsInt its, double rnorm, void *user);
/* Set the caller's monitor (one per solver; fn NULL removes it). */
int GsKspSetMonitorCallback(GsKsp ksp, GsKspMonitorFn fn, void *user);
/* Describe the solver to f (NULL: stdout): type (GMRES: restart, orthogonalisation), iteration
 * limit and initial guess, tolerances, preconditioner and side, the norm the test uses, the
 * operator and the back end, and how the last solve ended (if one ran). */
int GsKspView(GsKsp ksp, FILE *f);
/* Options: -ksp_type cg|bicgstab|gmres, -pc_type none|jacobi, -ksp_rtol, -ksp_atol, -ksp_dtol,
 * -ksp_max_it, -ksp_min_it, -ksp_converged_use_initial_residual_norm,
 * -ksp_converged_use_min_initial_residual_norm, -ksp_gmres_restart, -ksp_gmres_cgs_refinement_type
 * refine_always|refine_ifneeded|refine_never, -ksp_pc_side left|right, -ksp_initial_guess_nonzero,
 * -ksp_monitor, -ksp_monitor_true_residual, -ksp_converged_reason (prints the reason after each
 * solve), -ksp_view (GsKspView to stdout after each solve). */
int GsKspSetFromOptions(GsKsp ksp);

/* Solve A x = b. A zero or non-finite diagonal entry with Jacobi is GS_ERR_ZERO_PIVOT /
 * GS_ERR_NOT_FINITE naming its row. A solve whose residual test passed but whose x has an
 * infinite or NaN entry reports GS_DIVERGED_NANORINF: a converged reason means a finite x.
 * Every method confirms a passed test on the true residual b - A x (left preconditioning:
 * M^-1 (b - A x)) and go on from it where it fails. */
int GsKspSolve(GsKsp ksp, GsVec b, GsVec x);

int GsKspGetIterationNumber(GsKsp ksp, GsInt *its);
int GsKspGetConvergedReason(GsKsp ksp, GsConvergedReason *reason);
/* The last residual norm the method computed (unpreconditioned, or preconditioned on the left):
 * the recursive one, or b - A x's where that was computed last (a passed test it did not confirm,
 * GMRES's restarts). */
int GsKspGetResidualNorm(GsKsp ksp, double *rnorm);
/* Residual norms of iterations 0..n-1 of the last solve (valid until the next solve). */
int GsKspGetResidualHistory(GsKsp ksp, const double **norms, GsInt *n);

#ifdef __cplusplus
}
#endif
#endif
