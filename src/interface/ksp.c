/* Krylov solvers written once against GsVec operations and an operator, so the same code runs on
 * every back end: CG (preconditioned), BiCGStab and GMRES(m) with right preconditioning (their
 * residual is the true, unpreconditioned one), Jacobi. Convergence tests, reasons, monitors and
 * option names follow PETSc's KSP. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"
#include "matimpl.h"

#define GS_KSP_MAX_WORK 8 /* CG 4, BiCGStab 7 (GMRES keeps its basis apart) */

struct GsKsp_s {
  GsContext ctx;
  GsKspType type;
  GsPcType pc;
  GsPcSide side;
  double rtol, atol, dtol;
  GsInt max_it, min_it;
  GsKspRnorm0 rnorm0_ref; /* what rtol and dtol multiply */
  int restart, guess_nonzero;
  GsKspCGSRefinement cgs_refine; /* GMRES: when classical Gram-Schmidt takes a second pass */
  GsInt cgs_passes;              /* second passes taken if needed in the last solve */
  GsInt unconfirmed;             /* passed tests that b - A x did not confirm, last solve */
  int monitor, monitor_true, print_reason, print_view;
  FILE *mon;
  GsKspMonitorFn user_mon; /* the caller's monitor and its context */
  void *user_mon_ctx;
  /* Operator: a matrix, or a user's product (and diagonal). */
  GsMat A;
  GsInt n;
  GsOperatorMult mult;
  GsOperatorDiag diag;
  void *user;
  /* Work vectors, kept between solves of the same size. */
  GsVec work[GS_KSP_MAX_WORK];
  GsVec *basis; /* GMRES: restart + 1 */
  int nbasis;
  GsVec dinv;     /* Jacobi: 1 / diag(A) */
  int dinv_valid; /* dinv holds the matrix operator's (a matrix does not change) */
  GsInt work_n;
  /* Result of the last solve. */
  GsInt its;
  GsConvergedReason reason;
  double rnorm, bnorm;
  double rnorm0; /* rtol and dtol multiply it: ||b|| until the test of iteration 0 sets it */
  double *hist;
  GsInt nhist, cap_hist;
  int solved; /* a solve has run to its end (GsKspView reports it) */
  GsLogEvent ev_solve;
  GsScalars sc; /* CG's scalars on the operator's side (device memory on a GPU) */
};

const char *GsConvergedReasonName(GsConvergedReason r) {
  switch (r) {
  case GS_CONVERGED_ITERATING:
    return "CONVERGED_ITERATING";
  case GS_CONVERGED_RTOL:
    return "CONVERGED_RTOL";
  case GS_CONVERGED_ATOL:
    return "CONVERGED_ATOL";
  case GS_DIVERGED_ITS:
    return "DIVERGED_ITS";
  case GS_DIVERGED_DTOL:
    return "DIVERGED_DTOL";
  case GS_DIVERGED_BREAKDOWN:
    return "DIVERGED_BREAKDOWN";
  case GS_DIVERGED_INDEFINITE_PC:
    return "DIVERGED_INDEFINITE_PC";
  case GS_DIVERGED_NANORINF:
    return "DIVERGED_NANORINF";
  case GS_DIVERGED_INDEFINITE_MAT:
    return "DIVERGED_INDEFINITE_MAT";
  }
  return "UNKNOWN";
}

int GsKspCreate(GsContext ctx, GsKsp *ksp) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, ksp);
  GsKsp k = calloc(1, sizeof *k);
  GsCheck(k != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a Krylov solver");
  k->ctx = ctx;
  k->type = GS_KSP_GMRES;
  k->pc = GS_PC_JACOBI;
  k->rtol = 1e-5;
  k->atol = 1e-50;
  k->dtol = 1e5;
  k->max_it = 10000;
  k->restart = 30;
  k->mon = stdout;
  int ierr = GsLogEventRegister(ctx, "KSPSolve", &k->ev_solve);
  if (ierr) {
    free(k);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  ctx->nobjects++;
  *ksp = k;
  return 0;
}

static void free_work(GsKsp k) {
  for (int i = 0; i < GS_KSP_MAX_WORK; i++)
    GsVecDestroy(&k->work[i]);
  for (int i = 0; i < k->nbasis; i++)
    GsVecDestroy(&k->basis[i]);
  free(k->basis);
  k->basis = NULL;
  k->nbasis = 0;
  GsVecDestroy(&k->dinv);
  k->dinv_valid = 0;
  k->work_n = 0;
}

int GsKspDestroy(GsKsp *ksp) {
  if (!ksp || !*ksp) return 0;
  GsKsp k = *ksp;
  free_work(k);
  GsScalarsDestroy(&k->sc);
  free(k->hist);
  k->ctx->nobjects--;
  free(k);
  *ksp = NULL;
  return 0;
}

int GsKspSetOperator(GsKsp k, GsMat A) {
  GsCheckHandle(NULL, k);
  GsCheckHandle(k->ctx, A);
  GsInt m, n;
  GsCall(GsMatGetSize(A, &m, &n, NULL));
  GsCheck(m == n, k->ctx, GS_ERR_ARG_SIZE,
          "the operator must be square; this matrix is %lld x %lld", (long long)m, (long long)n);
  GsCheck(A->ctx == k->ctx, k->ctx, GS_ERR_ARG_INCOMP,
          "the matrix belongs to another context than the solver");
  k->dinv_valid = 0; /* even for the same handle: it may be a new matrix at the old address */
  k->A = A;
  k->n = n;
  k->mult = NULL;
  k->diag = NULL;
  k->user = NULL;
  return 0;
}

int GsKspSetOperatorShell(GsKsp k, GsInt n, GsOperatorMult mult, GsOperatorDiag diag, void *user) {
  GsCheckHandle(NULL, k);
  GsCheck(mult != NULL, k->ctx, GS_ERR_ARG_NULL, "the operator's product (mult) is NULL");
  GsCheck(n >= 0, k->ctx, GS_ERR_ARG_OUTOFRANGE, "operator size %lld", (long long)n);
  k->A = NULL;
  k->dinv_valid = 0;
  k->n = n;
  k->mult = mult;
  k->diag = diag;
  k->user = user;
  return 0;
}

int GsKspSetType(GsKsp k, GsKspType type) {
  GsCheckHandle(NULL, k);
  GsCheck(type == GS_KSP_CG || type == GS_KSP_BICGSTAB || type == GS_KSP_GMRES, k->ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown Krylov method %d", (int)type);
  k->type = type;
  return 0;
}

int GsKspSetPcType(GsKsp k, GsPcType type) {
  GsCheckHandle(NULL, k);
  GsCheck(type == GS_PC_NONE || type == GS_PC_JACOBI, k->ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown preconditioner %d", (int)type);
  k->pc = type;
  return 0;
}

int GsKspSetPcSide(GsKsp k, GsPcSide side) {
  GsCheckHandle(NULL, k);
  GsCheck(side == GS_PC_RIGHT || side == GS_PC_LEFT, k->ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown preconditioner side %d", (int)side);
  k->side = side;
  return 0;
}

int GsKspSetTolerances(GsKsp k, double rtol, double atol, double dtol, GsInt max_it) {
  GsCheckHandle(NULL, k);
  GsCheck(rtol >= 0 && rtol < 1 && atol >= 0 && dtol > 1 && max_it >= 0, k->ctx,
          GS_ERR_ARG_OUTOFRANGE,
          "tolerances rtol %g (in [0, 1)), atol %g (>= 0), dtol %g (> 1), max_it %lld (>= 0)", rtol,
          atol, dtol, (long long)max_it);
  k->rtol = rtol;
  k->atol = atol;
  k->dtol = dtol;
  k->max_it = max_it;
  return 0;
}

int GsKspSetGmresRestart(GsKsp k, int restart) {
  GsCheckHandle(NULL, k);
  GsCheck(restart >= 1 && restart <= 1000, k->ctx, GS_ERR_ARG_OUTOFRANGE,
          "GMRES restart %d: must be in [1, 1000]", restart);
  if (restart != k->restart) free_work(k);
  k->restart = restart;
  return 0;
}

int GsKspSetGmresCGSRefinement(GsKsp k, GsKspCGSRefinement type) {
  GsCheckHandle(NULL, k);
  GsCheck(type == GS_KSP_CGS_REFINE_ALWAYS || type == GS_KSP_CGS_REFINE_IFNEEDED ||
              type == GS_KSP_CGS_REFINE_NEVER,
          k->ctx, GS_ERR_ARG_OUTOFRANGE, "unknown Gram-Schmidt refinement %d", (int)type);
  k->cgs_refine = type;
  return 0;
}

int GsKspSetInitialGuessNonzero(GsKsp k, int flag) {
  GsCheckHandle(NULL, k);
  k->guess_nonzero = flag != 0;
  return 0;
}

int GsKspSetConvergedRnorm0(GsKsp k, GsKspRnorm0 ref) {
  GsCheckHandle(NULL, k);
  GsCheck(ref == GS_KSP_RNORM0_B || ref == GS_KSP_RNORM0_R0 || ref == GS_KSP_RNORM0_MIN, k->ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown reference norm %d for the relative test", (int)ref);
  k->rnorm0_ref = ref;
  return 0;
}

int GsKspSetMinIterations(GsKsp k, GsInt min_it) {
  GsCheckHandle(NULL, k);
  GsCheck(min_it >= 0, k->ctx, GS_ERR_ARG_OUTOFRANGE, "minimum iterations %lld: must be >= 0",
          (long long)min_it);
  k->min_it = min_it;
  return 0;
}

int GsKspSetMonitor(GsKsp k, int on, int true_residual, FILE *f) {
  GsCheckHandle(NULL, k);
  k->monitor = on != 0;
  k->monitor_true = on && true_residual;
  k->mon = f ? f : stdout;
  return 0;
}

int GsKspSetMonitorCallback(GsKsp k, GsKspMonitorFn fn, void *user) {
  GsCheckHandle(NULL, k);
  k->user_mon = fn;
  k->user_mon_ctx = fn ? user : NULL;
  return 0;
}

/* Names of the types, preconditioners and refinements (the options' words, GsKspView's names). */
static const char *const ksp_types[] = {"cg", "bicgstab", "gmres", NULL};
static const char *const pc_types[] = {"none", "jacobi", NULL};
static const char *const cgs_refines[] = {"refine_always", "refine_ifneeded", "refine_never", NULL};

int GsKspSetFromOptions(GsKsp k) {
  GsCheckHandle(NULL, k);
  GsContext ctx = k->ctx;
  static const char *const sides[] = {"right", "left", NULL};
  int refine = (int)k->cgs_refine;
  GsCall(GsOptionsGetEnum(ctx, "-ksp_gmres_cgs_refinement_type", cgs_refines, &refine, NULL));
  GsCall(GsKspSetGmresCGSRefinement(k, (GsKspCGSRefinement)refine));
  int t = (int)k->type, p = (int)k->pc, side = (int)k->side, on = 0, flag = k->guess_nonzero;
  GsCall(GsOptionsGetEnum(ctx, "-ksp_pc_side", sides, &side, NULL));
  k->side = (GsPcSide)side;
  GsCall(GsOptionsGetEnum(ctx, "-ksp_type", ksp_types, &t, NULL));
  GsCall(GsOptionsGetEnum(ctx, "-pc_type", pc_types, &p, NULL));
  double rtol = k->rtol, atol = k->atol, dtol = k->dtol;
  GsInt max_it = k->max_it, restart = k->restart;
  GsCall(GsOptionsGetReal(ctx, "-ksp_rtol", &rtol, NULL));
  GsCall(GsOptionsGetReal(ctx, "-ksp_atol", &atol, NULL));
  GsCall(GsOptionsGetReal(ctx, "-ksp_dtol", &dtol, NULL));
  GsCall(GsOptionsGetInt(ctx, "-ksp_max_it", &max_it, NULL));
  GsInt min_it = k->min_it;
  GsCall(GsOptionsGetInt(ctx, "-ksp_min_it", &min_it, NULL));
  GsCheck(min_it >= 0, ctx, GS_ERR_OPTION, "-ksp_min_it %lld: must be >= 0", (long long)min_it);
  int uir = k->rnorm0_ref == GS_KSP_RNORM0_R0, umir = k->rnorm0_ref == GS_KSP_RNORM0_MIN;
  GsCall(GsOptionsGetBool(ctx, "-ksp_converged_use_initial_residual_norm", &uir, NULL));
  GsCall(GsOptionsGetBool(ctx, "-ksp_converged_use_min_initial_residual_norm", &umir, NULL));
  GsCheck(!(uir && umir), ctx, GS_ERR_OPTION,
          "-ksp_converged_use_initial_residual_norm and "
          "-ksp_converged_use_min_initial_residual_norm exclude each other");
  GsCall(GsOptionsGetInt(ctx, "-ksp_gmres_restart", &restart, NULL));
  GsCall(GsOptionsGetBool(ctx, "-ksp_initial_guess_nonzero", &flag, NULL));
  GsCall(GsKspSetType(k, (GsKspType)t));
  GsCall(GsKspSetPcType(k, (GsPcType)p));
  GsCall(GsKspSetTolerances(k, rtol, atol, dtol, max_it));
  GsCall(GsKspSetMinIterations(k, min_it));
  GsCall(GsKspSetConvergedRnorm0(k, uir    ? GS_KSP_RNORM0_R0
                                    : umir ? GS_KSP_RNORM0_MIN
                                           : GS_KSP_RNORM0_B));
  GsCheck(restart >= 1 && restart <= 1000, ctx, GS_ERR_OPTION,
          "-ksp_gmres_restart %lld: must be in [1, 1000]", (long long)restart);
  GsCall(GsKspSetGmresRestart(k, (int)restart));
  k->guess_nonzero = flag;
  int mon = 0, mon_true = 0;
  GsCall(GsOptionsGetBool(ctx, "-ksp_monitor", &mon, NULL));
  GsCall(GsOptionsGetBool(ctx, "-ksp_monitor_true_residual", &mon_true, NULL));
  if (mon || mon_true) GsCall(GsKspSetMonitor(k, 1, mon_true, k->mon));
  GsCall(GsOptionsGetBool(ctx, "-ksp_converged_reason", &on, NULL));
  k->print_reason = on;
  on = k->print_view;
  GsCall(GsOptionsGetBool(ctx, "-ksp_view", &on, NULL));
  k->print_view = on;
  return 0;
}

/* ---- Pieces shared by the methods ---------------------------------------------------------- */

static int op_mult(GsKsp k, GsVec x, GsVec y) {
  if (k->A) {
    GsCall(GsMatMult(k->A, 1.0, x, 0.0, y));
  } else {
    int ierr = k->mult(k->user, x, y);
    GsCheck(!ierr, k->ctx, ierr, "the operator's product failed (code %d)", ierr);
  }
  return 0;
}

/* y = A x and s[i] = x . y, kept on the operator's side: in one pass for a matrix
 * (GsMatMultDotScalars). */
static int op_mult_dot_scalars(GsKsp k, GsVec x, GsVec y, GsScalars s, int i) {
  if (k->A) {
    GsCall(GsMatMultDotScalars(k->A, x, y, s, i));
  } else {
    double xy = 0;
    GsCall(op_mult(k, x, y));
    GsCall(GsVecDot(x, y, &xy));
    GsCall(GsScalarsSet(s, i, 1, &xy));
  }
  return 0;
}

/* y = M^-1 x (y may not be x). */
static int pc_apply(GsKsp k, GsVec x, GsVec y) {
  if (k->pc == GS_PC_JACOBI)
    GsCall(GsVecPointwiseMult(y, k->dinv, x));
  else
    GsCall(GsVecCopy(x, y));
  return 0;
}

/* out = M^-1 A in (left preconditioning), through tmp. */
static int op_left(GsKsp k, GsVec in, GsVec out, GsVec tmp) {
  GsCall(op_mult(k, in, tmp));
  GsCall(pc_apply(k, tmp, out));
  return 0;
}

/* r = M^-1 r, through tmp. */
static int pc_in_place(GsKsp k, GsVec r, GsVec tmp) {
  GsCall(pc_apply(k, r, tmp));
  GsCall(GsVecCopy(tmp, r));
  return 0;
}

/* Jacobi: the inverse diagonal; a zero or non-finite entry names its row. Kept for a matrix
 * operator (it does not change); a user's operator may, so its diagonal is asked for each solve. */
static int pc_setup(GsKsp k) {
  if (k->pc != GS_PC_JACOBI || k->dinv_valid) return 0;
  GsContext ctx = k->ctx;
  if (k->A) {
    GsCall(GsMatGetDiagonal(k->A, k->dinv));
  } else {
    GsCheck(k->diag != NULL, ctx, GS_ERR_UNSUPPORTED,
            "Jacobi needs the operator's diagonal: give GsKspSetOperatorShell a diag function");
    int ierr = k->diag(k->user, k->dinv);
    GsCheck(!ierr, ctx, ierr, "the operator's diagonal failed (code %d)", ierr);
  }
  double *d = malloc((size_t)(k->n ? k->n : 1) * sizeof *d);
  GsCheck(d != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %lld values", (long long)k->n);
  int ierr = GsVecGetValuesHost(k->dinv, d);
  GsInt zero = -1, bad = -1, nzero = 0;
  for (GsInt i = 0; !ierr && i < k->n; i++) {
    if (d[i] == 0) {
      if (zero < 0) zero = i;
      nzero++;
    } else if (!isfinite(d[i]) && bad < 0) {
      bad = i;
    }
  }
  free(d);
  GsCall(ierr);
  GsCheck(zero < 0, ctx, GS_ERR_ZERO_PIVOT,
          "Jacobi preconditioner: row %lld has a zero diagonal entry (%lld rows do); use "
          "-pc_type none or another preconditioner",
          (long long)zero, (long long)nzero);
  GsCheck(bad < 0, ctx, GS_ERR_NOT_FINITE,
          "Jacobi preconditioner: the diagonal entry of row %lld is not finite", (long long)bad);
  GsCall(GsVecReciprocal(k->dinv));
  k->dinv_valid = k->A != NULL;
  return 0;
}

/* Work vectors like b. */
static int setup_work(GsKsp k, GsVec b, int nwork, int nbasis) {
  if (k->work_n != k->n || (nbasis && k->nbasis != nbasis)) free_work(k);
  for (int i = 0; i < nwork; i++)
    if (!k->work[i]) GsCall(GsVecDuplicate(b, &k->work[i]));
  if (!k->dinv) GsCall(GsVecDuplicate(b, &k->dinv));
  if (nbasis && !k->basis) {
    k->basis = calloc((size_t)nbasis, sizeof *k->basis);
    GsCheck(k->basis != NULL, k->ctx, GS_ERR_MEMORY, "cannot allocate the GMRES basis");
    k->nbasis = nbasis;
    for (int i = 0; i < nbasis; i++)
      GsCall(GsVecDuplicate(b, &k->basis[i]));
  }
  k->work_n = k->n;
  return 0;
}

/* Iteration its and its residual norm into the history and the monitors (every iteration a solve
 * reports has its norm recorded, also where it stops without the test: the history holds its + 1
 * norms). */
static int record_norm(GsKsp k, GsInt its, double rnorm, GsVec x, GsVec b) {
  k->its = its;
  k->rnorm = rnorm;
  if (k->nhist == k->cap_hist) {
    GsInt cap = k->cap_hist ? 2 * k->cap_hist : 256;
    double *h = realloc(k->hist, (size_t)cap * sizeof *h);
    GsCheck(h != NULL, k->ctx, GS_ERR_MEMORY, "cannot grow the residual history");
    k->hist = h;
    k->cap_hist = cap;
  }
  k->hist[k->nhist++] = rnorm;
  if (k->monitor_true && x) {
    double tn = 0;
    GsVec t = k->work[GS_KSP_MAX_WORK - 1];
    GsCall(op_mult(k, x, t));
    GsCall(GsVecAXPBY(t, 1.0, -1.0, b));
    GsCall(GsVecNorm(t, GS_NORM_2, &tn));
    fprintf(k->mon, "%3lld KSP Residual norm %g true resid norm %g ||r(i)||/||b|| %g\n",
            (long long)its, rnorm, tn, k->bnorm > 0 ? tn / k->bnorm : tn);
  } else if (k->monitor) {
    fprintf(k->mon, "%3lld KSP Residual norm %g\n", (long long)its, rnorm);
  }
  if (k->user_mon) {
    const int ierr = k->user_mon(k, its, rnorm, k->user_mon_ctx);
    GsCheck(!ierr, k->ctx, ierr,
            "the monitor set by GsKspSetMonitorCallback returned %d (%s) at "
            "iteration %lld",
            ierr, GsErrorName(ierr), (long long)its);
  }
  return 0;
}

/* The reference of the relative test (PETSc's rnorm0), from the initial residual's norm r0norm
 * (the test of iteration 0, which every method runs once, first). */
static void set_rnorm0(GsKsp k, double r0norm) {
  switch (k->rnorm0_ref) {
  case GS_KSP_RNORM0_R0:
    k->rnorm0 = r0norm;
    break;
  case GS_KSP_RNORM0_MIN:
    k->rnorm0 = fmin(k->bnorm, r0norm);
    break;
  default: /* ||b||; a zero b with a given x0 leaves only r0 to measure progress by (PETSc) */
    k->rnorm0 = k->bnorm == 0 && k->guess_nonzero ? r0norm : k->bnorm;
  }
}

/* CONVERGED_ATOL or CONVERGED_RTOL when rnorm passes PETSc's default test at iteration its
 * (rnorm <= max(rtol rnorm0, atol), not before min_it iterations unless rnorm is 0: an exact
 * solution leaves nothing to iterate on, and the methods would take it for a breakdown), else
 * CONVERGED_ITERATING. */
static GsConvergedReason passes_test(const GsKsp k, GsInt its, double rnorm) {
  if ((its < k->min_it && rnorm != 0) || !(rnorm <= fmax(k->rtol * k->rnorm0, k->atol)))
    return GS_CONVERGED_ITERATING;
  return rnorm < k->atol ? GS_CONVERGED_ATOL : GS_CONVERGED_RTOL;
}

/* Record iteration its with residual norm rnorm, print monitors, decide whether to stop. x and b
 * serve the true-residual monitor (x may be NULL when the method holds no current solution). The
 * first call of a solve passes the initial residual's norm. */
static int test_converged(GsKsp k, GsInt its, double rnorm, GsVec x, GsVec b, int *stop) {
  if (its == 0) set_rnorm0(k, rnorm);
  GsCall(record_norm(k, its, rnorm, x, b));
  *stop = 1;
  const double ref = k->rnorm0;
  const GsConvergedReason passed = passes_test(k, its, rnorm);
  if (!isfinite(rnorm))
    k->reason = GS_DIVERGED_NANORINF;
  else if (passed)
    k->reason = passed;
  else if (rnorm >= k->dtol * ref && ref > 0)
    k->reason = GS_DIVERGED_DTOL;
  else if (its >= k->max_it)
    k->reason = GS_DIVERGED_ITS;
  else
    *stop = 0;
  return 0;
}

/* r = b - A x, or r = b with a zero initial guess (x set to 0). */
static int initial_residual(GsKsp k, GsVec b, GsVec x, GsVec r) {
  if (k->guess_nonzero) {
    GsCall(op_mult(k, x, r));
    GsCall(GsVecAXPBY(r, 1.0, -1.0, b));
  } else {
    GsCall(GsVecSet(x, 0.0));
    GsCall(GsVecCopy(b, r));
  }
  return 0;
}

/* A recursive residual (CG's, BiCGStab's) passed the test at iteration its: r = b - A x (left:
 * M^-1 (b - A x), tmp as work) and its norm decide. Passed, the solve stops with its reason;
 * failed, *again is set for the method to go on from r, unless its reached max_it (DIVERGED_ITS); a
 * non-finite norm is DIVERGED_NANORINF. A recursive residual drifts from b - A x by the rounding
 * of every step and goes on shrinking below what x can attain, so it can pass a tolerance that x
 * does not meet; the check costs one product a solve. */
static int confirm_residual(GsKsp k, GsVec b, GsVec x, GsVec r, GsVec tmp, int left, GsInt its,
                            double *rnorm, int *stop, int *again) {
  double tn = 0;
  GsCall(op_mult(k, x, r));
  GsCall(GsVecAXPBY(r, 1.0, -1.0, b));
  if (left) GsCall(pc_in_place(k, r, tmp));
  GsCall(GsVecNorm(r, GS_NORM_2, &tn));
  if (!isfinite(tn)) {
    k->reason = GS_DIVERGED_NANORINF;
    return 0;
  }
  if (passes_test(k, its, tn)) return 0;
  *rnorm = tn;
  k->rnorm = tn; /* the last norm computed, which GsKspGetResidualNorm reports */
  k->unconfirmed++;
  if (its >= k->max_it) {
    k->reason = GS_DIVERGED_ITS;
    return 0;
  }
  k->reason = GS_CONVERGED_ITERATING;
  *stop = 0;
  *again = 1;
  return 0;
}

/* ---- CG ------------------------------------------------------------------------------------ */

/* Per iteration: q = A p and p . q, then two fused passes: r -= alpha q with r . M^-1 r and r . r
 * (GsVecAXPYPair without x), and x += alpha p with p = M^-1 r + beta p (GsVecAXPYPointwiseMultAYPX,
 * the pass that reads p anyway: 10 values per entry instead of 11). Jacobi's M^-1 r is dinv .* r,
 * which both passes form on the fly, so z is only used to start.
 *
 * The scalars stay on the operator's side (GsScalars): alpha = r.z / p.q and beta = r.z' / r.z
 * are read there by the passes that use them, so the host never stands between two passes. It
 * reads p.q, r.r and r.z' once per iteration (GsScalarsReadBegin after the residual pass), and
 * with a matrix operator on a GPU it queues the next product before it waits for them: the device
 * works through the convergence test, at the price of one unused product when the test stops the
 * solve. A step with p.q <= 0 (or NaN) is skipped by the passes themselves (the ratio's rule),
 * which leaves x and r as the host-side loop left them. Slots: 0 holds p.q; an iteration of
 * parity j writes r.r and r.z (without Jacobi, r.z is r.r) at 1 + 2 (1 - j) and reads the r.z of
 * its parity, so the two r.z of beta are both at hand. */
static int solve_cg(GsKsp k, GsVec b, GsVec x) {
  GsVec r = k->work[0], z = k->work[1], p = k->work[2], q = k->work[3];
  const int pc = k->pc != GS_PC_NONE;
  GsVec dinv = pc ? k->dinv : NULL; /* pc is Jacobi: the only preconditioner besides none */
  if (!pc) z = r;
  GsCall(initial_residual(k, b, x, r));
  /* The next product goes ahead of the test only where it can overlap it (a back end that reads
   * scalars asynchronously), and never for a user's operator, which is not called for nothing. */
  const int ahead = k->A != NULL && k->ctx->ops->read_async != NULL;
  if (!k->sc) GsCall(GsScalarsCreate(k->ctx, 5, &k->sc));
  GsScalars s = k->sc;
  if (s->rcount) { /* left open by a solve that failed between its Begin and End */
    double v[5];
    GsCall(GsScalarsReadEnd(s, v));
  }
  /* A run of the recurrence from r at iteration its0: the first from the initial residual, a later
   * one from b - A x where that did not confirm a passed test (see confirm_residual). */
  for (GsInt its0 = 0;;) {
    double rnorm, rz;
    if (pc) GsCall(pc_apply(k, r, z));
    GsCall(GsVecDotNorm2(z, r, &rz, &rnorm));
    rnorm = sqrt(rnorm);
    if (rz < 0) { /* M^-1 is not positive definite: PCG does not apply */
      if (its0 == 0) GsCall(record_norm(k, 0, rnorm, x, b));
      k->reason = GS_DIVERGED_INDEFINITE_PC;
      return 0;
    }
    GsCall(GsVecCopy(z, p));
    int stop = 0, again = 0;
    if (its0 == 0) {
      GsCall(test_converged(k, 0, rnorm, x, b, &stop));
      if (stop) return 0;
    }
    GsCall(GsScalarsSet(s, 1 + pc, 1, &rz));
    GsCall(op_mult_dot_scalars(k, p, q, s, 0));
    for (GsInt i = 0;; i++) {
      const GsInt its = its0 + i;
      const int j = (int)(i & 1), res = 1 + 2 * (1 - j), rz_cur = 1 + 2 * j + pc, rz_new = res + pc;
      const GsScalarRatio alpha = {s, rz_cur, 0}, beta = {s, rz_new, rz_cur};
      GsCall(GsVecAXPYPairScalars(NULL, r, alpha, NULL, q, dinv, s, res));
      GsCall(GsScalarsReadBegin(s, 0, 5));
      GsCall(GsVecAXPYPointwiseMultAYPXScalars(x, alpha, p, beta, dinv, r));
      if (ahead) GsCall(op_mult_dot_scalars(k, p, q, s, 0));
      double v[5];
      GsCall(GsScalarsReadEnd(s, v));
      const double pq = v[0];
      if (!(pq > 0)) { /* neither pass ran: x and r are those of iteration its */
        k->reason = pq != pq ? GS_DIVERGED_NANORINF : GS_DIVERGED_INDEFINITE_MAT;
        break;
      }
      rnorm = sqrt(v[res]);
      /* Where the sum of squares left the double range, the scaled norm (GsVecAXPYNorm's). */
      if (isinf(rnorm) || rnorm < 1e-150) GsCall(GsVecNorm(r, GS_NORM_2, &rnorm));
      if (v[rz_new] < 0) { /* x += alpha p is done */
        GsCall(record_norm(k, its + 1, rnorm, x, b));
        k->reason = GS_DIVERGED_INDEFINITE_PC;
        break;
      }
      GsCall(test_converged(k, its + 1, rnorm, x, b, &stop));
      if (stop && k->reason > 0)
        GsCall(confirm_residual(k, b, x, r, NULL, 0, its + 1, &rnorm, &stop, &again));
      if (stop) break;
      if (again) { /* r is b - A x: a new run from it */
        its0 = its + 1;
        break;
      }
      if (!ahead) GsCall(op_mult_dot_scalars(k, p, q, s, 0));
    }
    if (!again) break;
  }
  return 0;
}

/* ---- BiCGStab, right preconditioned --------------------------------------------------------- */

static int solve_bicgstab(GsKsp k, GsVec b, GsVec x) {
  GsVec r = k->work[0], rh = k->work[1], p = k->work[2], v = k->work[3], ph = k->work[4],
        sh = k->work[5], t = k->work[6];
  const int left = k->side == GS_PC_LEFT && k->pc != GS_PC_NONE;
  GsCall(initial_residual(k, b, x, r));
  if (left) GsCall(pc_in_place(k, r, ph));
  double rnorm;
  GsCall(GsVecNorm(r, GS_NORM_2, &rnorm));
  GsCall(GsVecCopy(r, rh));
  double rhnorm = rnorm;
  double rho = 1, alpha = 1, omega = 1;
  /* A passed test is confirmed on b - A x (confirm_residual); a failed one goes on from the true
   * residual with the shadow residual restarted. */
  int restart = 0, skip_test = 0;
  for (GsInt its = 0;; its++) {
    int stop = 0;
    if (!skip_test) GsCall(test_converged(k, its, rnorm, x, b, &stop));
    skip_test = 0;
    if (stop && k->reason > 0 && its > 0)
      GsCall(confirm_residual(k, b, x, r, ph, left, its, &rnorm, &stop, &restart));
    if (stop) break;
    if (restart) {
      GsCall(GsVecCopy(r, rh));
      rhnorm = rnorm;
    }
    double rho_new;
    GsCall(GsVecDot(rh, r, &rho_new));
    if (rho_new != rho_new) {
      k->reason = GS_DIVERGED_NANORINF;
      break;
    }
    int fresh = its == 0 || restart;
    restart = 0;
    if (fabs(rho_new) <= 64 * DBL_EPSILON * rhnorm * rnorm) {
      /* r has become orthogonal to the shadow residual (to rounding): restart the recurrence
       * with r as the new shadow residual instead of breaking down. */
      GsCall(GsVecCopy(r, rh));
      rhnorm = rnorm;
      rho_new = rnorm * rnorm;
      fresh = 1;
      if (rho_new == 0) {
        k->reason = GS_DIVERGED_BREAKDOWN;
        break;
      }
    }
    if (fresh) {
      GsCall(GsVecCopy(r, p));
    } else {
      const double beta = (rho_new / rho) * (alpha / omega);
      GsCall(GsVecAXPBYPCZ(p, 1.0, -omega * beta, beta, r, v)); /* p = r - w b v + b p */
    }
    if (left) {
      GsCall(op_left(k, p, v, ph));
    } else {
      GsCall(pc_apply(k, p, ph));
      GsCall(op_mult(k, ph, v));
    }
    double rv;
    GsCall(GsVecDot(rh, v, &rv));
    if (rv == 0 || rv != rv) {
      k->reason = rv != rv ? GS_DIVERGED_NANORINF : GS_DIVERGED_BREAKDOWN;
      break;
    }
    alpha = rho_new / rv;
    double snorm;
    GsCall(GsVecAXPYNorm(r, -alpha, v, &snorm)); /* r is now s */
    if (passes_test(k, its + 1, snorm)) {
      /* Converged at the half step (as PETSc's BCGS): x += alpha p^ and stop. */
      GsCall(GsVecAXPY(x, alpha, left ? p : ph));
      GsCall(test_converged(k, its + 1, snorm, x, b, &stop));
      if (stop && k->reason > 0)
        GsCall(confirm_residual(k, b, x, r, ph, left, its + 1, &rnorm, &stop, &restart));
      if (stop) break;
      /* (snorm passed the test, so only b - A x failing it gets here: r and rnorm are the true
       * residual, restart is set) */
      skip_test = 1; /* iteration its + 1's norm is in the history */
      continue;
    }
    if (left) {
      GsCall(op_left(k, r, t, sh));
    } else {
      GsCall(pc_apply(k, r, sh));
      GsCall(op_mult(k, sh, t));
    }
    double ts, tt;
    GsCall(GsVecDotNorm2(r, t, &ts, &tt));
    if (tt == 0 || ts != ts) {
      k->reason = ts != ts ? GS_DIVERGED_NANORINF : GS_DIVERGED_BREAKDOWN;
      break;
    }
    omega = ts / tt;
    /* x += alpha p^ + omega s^ in one pass (x is not in the recurrence: the order of the sum
     * changes no residual). */
    GsCall(GsVecAXPBYPCZ(x, alpha, omega, 1.0, left ? p : ph, left ? r : sh));
    GsCall(GsVecAXPYNorm(r, -omega, t, &rnorm));
    rho = rho_new;
    if (omega == 0) {
      GsCall(record_norm(k, its + 1, rnorm, x, b));
      k->reason = GS_DIVERGED_BREAKDOWN;
      break;
    }
  }
  return 0;
}

/* ---- GMRES(m), right preconditioned, classical Gram-Schmidt twice ------------------------------
 */

/* x += M^-1 (V y) for the first kk basis vectors (left preconditioning: x += V y; u, z: work). */
static int gmres_update(GsKsp k, GsVec x, const double *H, const double *g, int kk, int m, GsVec u,
                        GsVec z, int left) {
  if (kk == 0) return 0;
  double y[1001];
  for (int i = kk - 1; i >= 0; i--) { /* back substitution with the triangular H */
    double s = g[i];
    for (int j = i + 1; j < kk; j++)
      s -= H[i * m + j] * y[j];
    y[i] = s / H[i * m + i];
  }
  GsCall(GsVecSet(u, 0.0));
  GsCall(GsVecMAXPY(u, kk, y, k->basis));
  if (left) {
    GsCall(GsVecAXPY(x, 1.0, u));
  } else {
    GsCall(pc_apply(k, u, z));
    GsCall(GsVecAXPY(x, 1.0, z));
  }
  return 0;
}

static int solve_gmres(GsKsp k, GsVec b, GsVec x) {
  const int m = k->restart;
  GsVec r = k->work[0], w = k->work[1], z = k->work[2], u = k->work[3], xt = k->work[4];
  GsContext ctx = k->ctx;
  /* H: the rotated Hessenberg matrix, row-major (m + 1) x m; Givens c, s; g the rotated rhs. */
  double *H = calloc((size_t)(m + 1) * (size_t)m, sizeof *H);
  double *cs = calloc((size_t)m, sizeof *cs), *sn = calloc((size_t)m, sizeof *sn);
  double *g = calloc((size_t)m + 1, sizeof *g), *h = calloc((size_t)m + 1, sizeof *h);
  double *h2 = calloc((size_t)m + 1, sizeof *h2), *nh = calloc((size_t)m + 1, sizeof *nh);
  int ierr = (!H || !cs || !sn || !g || !h || !h2 || !nh)
                 ? GsError(ctx, GS_ERR_MEMORY, "cannot allocate GMRES(%d) scratch", m)
                 : 0;
  GsInt its = 0;
  const int left = k->side == GS_PC_LEFT && k->pc != GS_PC_NONE;
  if (!ierr) ierr = initial_residual(k, b, x, r);
  if (!ierr && left) ierr = pc_in_place(k, r, z);
  int confirming = 0; /* the last cycle's estimate passed the test: the true residual decides */
  for (int cycle = 0; !ierr; cycle++) {
    double beta;
    if (cycle > 0) { /* the true residual at each restart */
      ierr = op_mult(k, x, r);
      if (!ierr) ierr = GsVecAXPBY(r, 1.0, -1.0, b);
      if (!ierr && left) ierr = pc_in_place(k, r, z);
      if (ierr) break;
    }
    ierr = GsVecNorm(r, GS_NORM_2, &beta);
    if (ierr) break;
    int stop = 0;
    if (cycle == 0) {
      ierr = test_converged(k, 0, beta, x, b, &stop);
      if (ierr || stop) break;
    } else {
      const GsConvergedReason passed = passes_test(k, its, beta);
      if (confirming && passed) break; /* the reason the estimate gave stands */
      if (confirming) {
        /* The least-squares estimate passed where the true residual does not (rounding in a
         * nearly singular Hessenberg matrix): never report that as converged; go on from here. */
        k->reason = GS_CONVERGED_ITERATING;
        k->rnorm = beta;
        k->unconfirmed++;
        confirming = 0;
        if (its >= k->max_it) {
          k->reason = GS_DIVERGED_ITS;
          break;
        }
      } else {
        k->rnorm = beta;
        if (passed) {
          k->reason = passed;
          break;
        }
      }
    }
    if (beta == 0) break;
    ierr = GsVecAXPBY(k->basis[0], 1.0 / beta, 0.0, r);
    memset(g, 0, ((size_t)m + 1) * sizeof *g);
    g[0] = beta;
    int kk = 0;
    for (int j = 0; j < m && !ierr && !stop; j++) {
      if (left) {
        ierr = op_left(k, k->basis[j], w, z);
      } else {
        ierr = pc_apply(k, k->basis[j], z);
        if (!ierr) ierr = op_mult(k, z, w);
      }
      /* Classical Gram-Schmidt: each pass one fused multi-dot and one fused update (w -= sum
       * h_i v_i, one pass over w where the back end fuses it); a second pass always (CGS2, the
       * default), never, or if needed: when the first pass took w's norm below 1/sqrt(2) of what
       * it was (sqrt(||w||^2 + sum h_i^2) before it, without another pass over w), the test of
       * "twice is enough". */
      double hn = 0;
      for (int pass = 0; pass < 2 && !ierr; pass++) {
        ierr = GsVecMDot(w, j + 1, k->basis, h2);
        for (int i = 0; i <= j; i++) {
          nh[i] = -h2[i];
          h[i] = pass ? h[i] + h2[i] : h2[i];
        }
        if (!ierr) ierr = GsVecMAXPY(w, j + 1, nh, k->basis);
        if (!ierr && (pass || k->cgs_refine != GS_KSP_CGS_REFINE_ALWAYS))
          ierr = GsVecNorm(w, GS_NORM_2, &hn);
        if (ierr || pass || k->cgs_refine == GS_KSP_CGS_REFINE_NEVER) break;
        if (k->cgs_refine == GS_KSP_CGS_REFINE_IFNEEDED) {
          double hh = hn * hn;
          for (int i = 0; i <= j; i++)
            hh += h2[i] * h2[i];
          if (!(hn < sqrt(0.5 * hh))) break; /* kept enough of its norm: orthogonal enough */
          k->cgs_passes++;
        }
      }
      if (ierr) break;
      h[j + 1] = hn;
      if (hn > 0) ierr = GsVecAXPBY(k->basis[j + 1], 1.0 / hn, 0.0, w);
      /* Apply the earlier rotations to column j, then make the one that zeroes h[j + 1]. */
      for (int i = 0; i < j; i++) {
        const double a = h[i], c = h[i + 1];
        h[i] = cs[i] * a + sn[i] * c;
        h[i + 1] = -sn[i] * a + cs[i] * c;
      }
      const double den = hypot(h[j], h[j + 1]);
      cs[j] = den > 0 ? h[j] / den : 1;
      sn[j] = den > 0 ? h[j + 1] / den : 0;
      h[j] = den;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      for (int i = 0; i <= j; i++)
        H[i * m + j] = h[i];
      kk = j + 1;
      its++;
      /* A NaN or inf in the column would pass as a rotation by 0 (den > 0 fails): report it. */
      const int finite = isfinite(den) && isfinite(hn);
      if (!finite) kk = j; /* x keeps the columns before it */
      const double rn = finite ? fabs(g[j + 1]) : NAN;
      GsVec xcur = NULL;
      if (k->monitor_true && !ierr) { /* the current solution, for the monitor only */
        ierr = GsVecCopy(x, xt);
        if (!ierr) ierr = gmres_update(k, xt, H, g, kk, m, u, z, left);
        xcur = xt;
      }
      /* A zero column (hn == 0: the space is invariant; den == 0 as well: a singular H) makes
       * sn and so the estimate 0, which passes the test (before min_it too): the true residual
       * at the next cycle's start then confirms it or goes on. */
      if (!ierr) ierr = test_converged(k, its, rn, xcur, b, &stop);
    }
    if (!ierr) ierr = gmres_update(k, x, H, g, kk, m, u, z, left);
    if (stop && k->reason > 0) {
      confirming = 1; /* checked against the true residual at the top of the next cycle */
      continue;
    }
    if (stop) break;
  }
  free(H);
  free(cs);
  free(sn);
  free(g);
  free(h);
  free(h2);
  free(nh);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

int GsKspSolve(GsKsp k, GsVec b, GsVec x) {
  GsCheckHandle(NULL, k);
  GsContext ctx = k->ctx;
  GsCheck(k->A || k->mult, ctx, GS_ERR_WRONG_STATE, "GsKspSolve before GsKspSetOperator");
  GsCheck(b && x, ctx, GS_ERR_ARG_NULL, "b or x is NULL");
  GsCheck(b != x, ctx, GS_ERR_ARG_INCOMP, "b and x must be different vectors");
  GsInt nb, nx;
  GsCall(GsVecCheckFor(ctx, b, "b", "the (double) Krylov solver", GS_DOUBLE, &nb));
  GsCall(GsVecCheckFor(ctx, x, "x", "the (double) Krylov solver", GS_DOUBLE, &nx));
  GsCheck(nb == k->n && nx == k->n, ctx, GS_ERR_ARG_SIZE,
          "b has %lld and x %lld entries; the operator is %lld x %lld", (long long)nb,
          (long long)nx, (long long)k->n, (long long)k->n);
  GsCall(setup_work(k, b, GS_KSP_MAX_WORK, k->type == GS_KSP_GMRES ? k->restart + 1 : 0));
  GsCall(pc_setup(k));
  k->its = 0;
  k->cgs_passes = 0;
  k->unconfirmed = 0;
  k->nhist = 0;
  k->rnorm = 0;
  k->reason = GS_CONVERGED_ITERATING;
  if (k->side == GS_PC_LEFT && k->pc != GS_PC_NONE && k->type != GS_KSP_CG) {
    /* Left preconditioning tests ||M^-1 r|| against rtol ||M^-1 b||. */
    GsCall(pc_apply(k, b, k->work[GS_KSP_MAX_WORK - 1]));
    GsCall(GsVecNorm(k->work[GS_KSP_MAX_WORK - 1], GS_NORM_2, &k->bnorm));
  } else {
    GsCall(GsVecNorm(b, GS_NORM_2, &k->bnorm));
  }
  k->rnorm0 = k->bnorm;
  GsCall(GsLogEventBegin(ctx, k->ev_solve));
  int ierr = k->type == GS_KSP_CG         ? solve_cg(k, b, x)
             : k->type == GS_KSP_BICGSTAB ? solve_bicgstab(k, b, x)
                                          : solve_gmres(k, b, x);
  /* A residual test passed by the recursive residual says nothing of x itself: on a singular
   * operator BiCGStab's x can grow past the double range while its recursive residual, no longer
   * b - A x, settles under the tolerance (found by test_fuzz). So a converged solve checks x once,
   * and an x with an infinite or NaN entry is reported as DIVERGED_NANORINF instead. */
  double xmax = 0;
  if (!ierr && k->reason > 0) ierr = GsVecNorm(x, GS_NORM_INF, &xmax);
  if (ierr) {
    GsLogEventCancel(ctx, k->ev_solve);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  if (!isfinite(xmax)) k->reason = GS_DIVERGED_NANORINF;
  GsCall(GsLogEventEnd(ctx, k->ev_solve, 0, 0));
  if (k->print_reason)
    printf("Linear solve %s due to %s iterations %lld\n",
           k->reason > 0 ? "converged" : "did not converge", GsConvergedReasonName(k->reason),
           (long long)k->its);
  k->solved = 1;
  if (k->print_view) GsCall(GsKspView(k, stdout));
  return 0;
}

int GsKspView(GsKsp k, FILE *f) {
  GsCheckHandle(NULL, k);
  if (!f) f = stdout;
  const int left = k->side == GS_PC_LEFT && k->pc != GS_PC_NONE && k->type != GS_KSP_CG;
  fprintf(f, "KSP Object:\n  type: %s\n", ksp_types[k->type]);
  if (k->type == GS_KSP_GMRES)
    fprintf(f, "    restart=%d, classical Gram-Schmidt, %s\n", k->restart,
            k->cgs_refine == GS_KSP_CGS_REFINE_ALWAYS     ? "twice (CGS2)"
            : k->cgs_refine == GS_KSP_CGS_REFINE_IFNEEDED ? "a second pass if needed"
                                                          : "one pass");
  fprintf(f, "  maximum iterations=%lld, initial guess is %s\n", (long long)k->max_it,
          k->guess_nonzero ? "nonzero" : "zero");
  if (k->min_it) fprintf(f, "  minimum iterations=%lld\n", (long long)k->min_it);
  fprintf(f, "  tolerances: relative=%g, absolute=%g, divergence=%g\n", k->rtol, k->atol, k->dtol);
  if (k->rnorm0_ref != GS_KSP_RNORM0_B)
    fprintf(f, "  relative and divergence tests against %s\n",
            k->rnorm0_ref == GS_KSP_RNORM0_R0 ? "the initial residual's norm"
                                              : "min(||b||, the initial residual's norm)");
  if (k->type == GS_KSP_CG)
    fprintf(f, "  preconditioned CG (the side does not apply)\n");
  else
    fprintf(f, "  %s preconditioning\n", left ? "left" : "right");
  fprintf(f, "  using %s norm type for convergence test\n",
          left ? "PRECONDITIONED" : "UNPRECONDITIONED");
  fprintf(f, "PC Object:\n  type: %s\n", pc_types[k->pc]);
  if (k->A) {
    GsInt m = 0, n = 0, nnz = 0;
    const char *spmv = "";
    GsCall(GsMatGetSize(k->A, &m, &n, &nnz));
    GsCall(GsMatGetSpMVKernel(k->A, &spmv));
    fprintf(f, "  operator: matrix, rows=%lld, cols=%lld, nonzeros=%lld, SpMV kernel %s\n",
            (long long)m, (long long)n, (long long)nnz,
            spmv[0] ? spmv : "(chosen at the first product)");
  } else if (k->mult) {
    fprintf(f, "  operator: the caller's product (matrix-free), rows=%lld, diagonal %s\n",
            (long long)k->n, k->diag ? "given" : "not given");
  } else {
    fprintf(f, "  operator: not set\n");
  }
  const char *res = "";
  GsCall(GsGetResource(k->ctx, &res));
  fprintf(f, "  back end: %s\n", res);
  if (k->solved) {
    char ref[64] = "";
    if (k->rnorm0 != k->bnorm) snprintf(ref, sizeof ref, ", tests against %g", k->rnorm0);
    fprintf(f, "  last solve: %s in %lld iterations, residual norm %g (||b|| %g%s)\n",
            GsConvergedReasonName(k->reason), (long long)k->its, k->rnorm, k->bnorm, ref);
  }
  if (k->solved && k->unconfirmed)
    fprintf(f, "  passed tests that b - A x did not confirm: %lld (each went on from b - A x)\n",
            (long long)k->unconfirmed);
  if (k->solved && k->type == GS_KSP_GMRES && k->cgs_refine == GS_KSP_CGS_REFINE_IFNEEDED)
    fprintf(f, "  second Gram-Schmidt passes taken: %lld\n", (long long)k->cgs_passes);
  return 0;
}

int GsKspGetIterationNumber(GsKsp k, GsInt *its) {
  GsCheckHandle(NULL, k);
  GsCheckHandle(k->ctx, its);
  *its = k->its;
  return 0;
}

int GsKspGetConvergedReason(GsKsp k, GsConvergedReason *reason) {
  GsCheckHandle(NULL, k);
  GsCheckHandle(k->ctx, reason);
  *reason = k->reason;
  return 0;
}

int GsKspGetResidualNorm(GsKsp k, double *rnorm) {
  GsCheckHandle(NULL, k);
  GsCheckHandle(k->ctx, rnorm);
  *rnorm = k->rnorm;
  return 0;
}

int GsKspGetResidualHistory(GsKsp k, const double **norms, GsInt *n) {
  GsCheckHandle(NULL, k);
  if (norms) *norms = k->hist;
  if (n) *n = k->nhist;
  return 0;
}
