/* Vectors: n entries of double or float, with a host copy and, on GPU back ends, a device copy.
 *
 * A vector knows which copies are valid. Operations run where the context computes (the device on a
 * GPU back end) and move data only when the valid copy is elsewhere. Direct access goes through
 * GsVecGetArray{,Read,Write}(v, mem, &p) ... GsVecRestoreArray{,Read,Write}(v, &p).
 * All vectors in one operation must share the context, the length and (except GsVecCopy) the type.
 * Reductions accumulate in double and return double. */
#ifndef GPUSOLVE_VEC_H
#define GPUSOLVE_VEC_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a vector of n >= 0 entries of type dt; contents are undefined until set. */
int GsVecCreate(GsContext ctx, GsInt n, GsDataType dt, GsVec *v);
/* Wrap a user array of n entries living in memory space mem, without copying. The caller keeps
 * ownership and must keep it alive until GsVecDestroy. A GS_MEM_DEVICE array needs a GPU back end.
 */
int GsVecCreateWithArray(GsContext ctx, GsInt n, GsDataType dt, GsMemType mem, void *array,
                         GsVec *v);
/* A new vector like x (same context, length, type); contents undefined. */
int GsVecDuplicate(GsVec x, GsVec *y);
/* Free the vector and set *v = NULL; safe on NULL and twice. */
int GsVecDestroy(GsVec *v);

int GsVecGetSize(GsVec v, GsInt *n);
int GsVecGetDataType(GsVec v, GsDataType *dt);
int GsVecGetContext(GsVec v, GsContext *ctx);

/* Read-write access: *array is valid in `mem`; other copies are stale after the restore. */
int GsVecGetArray(GsVec v, GsMemType mem, void **array);
int GsVecRestoreArray(GsVec v, void **array);
/* Read-only access: no copy becomes stale. */
int GsVecGetArrayRead(GsVec v, GsMemType mem, const void **array);
int GsVecRestoreArrayRead(GsVec v, const void **array);
/* Write-only access: contents on entry are undefined; every entry must be written. */
int GsVecGetArrayWrite(GsVec v, GsMemType mem, void **array);
int GsVecRestoreArrayWrite(GsVec v, void **array);

/* Copy n entries between the vector and a host array of the vector's type. */
int GsVecSetValuesHost(GsVec v, const void *values);
int GsVecGetValuesHost(GsVec v, void *values);

/* x[i] = alpha */
int GsVecSet(GsVec x, double alpha);
/* y = x; converts between double and float when the types differ. */
int GsVecCopy(GsVec x, GsVec y);
/* x = alpha x */
int GsVecScale(GsVec x, double alpha);
/* y = y + alpha x */
int GsVecAXPY(GsVec y, double alpha, GsVec x);
/* y = alpha x + beta y; y is not read when beta == 0. */
int GsVecAXPBY(GsVec y, double alpha, double beta, GsVec x);
/* y = y + alpha[0] x[0] + alpha[1] x[1] + ... (nv terms), added in that order: the same bits as
 * nv GsVecAXPY calls in turn, in one pass over y where the back end fuses it (the CPU). y must not
 * be one of the x. */
int GsVecMAXPY(GsVec y, int nv, const double alpha[], const GsVec x[]);
/* w = alpha x + y */
int GsVecWAXPY(GsVec w, double alpha, GsVec x, GsVec y);
/* z = alpha x + beta y + gamma z, summed left to right, in one pass; z is not read when
 * gamma == 0. z may be x or y. */
int GsVecAXPBYPCZ(GsVec z, double alpha, double beta, double gamma, GsVec x, GsVec y);
/* w[i] = x[i] * y[i] */
int GsVecPointwiseMult(GsVec w, GsVec x, GsVec y);
/* w[i] = x[i] / y[i] */
int GsVecPointwiseDivide(GsVec w, GsVec x, GsVec y);
/* x[i] = 1 / x[i], leaving zero entries zero (as for a Jacobi preconditioner). */
int GsVecReciprocal(GsVec x);

/* x . y */
int GsVecDot(GsVec x, GsVec y, double *result);
/* results[k] = x . y[k] for k < nv, in one pass over x. */
int GsVecMDot(GsVec x, int nv, const GsVec y[], double results[]);
/* ||x|| in the 1-, 2- or infinity-norm. The 2-norm is safe from overflow and underflow: a double
 * vector whose sum of squares leaves the double range is measured again, scaled. */
int GsVecNorm(GsVec x, GsNormType type, double *result);
/* y = y + alpha x, then *norm = ||y||_2, in one pass (a second, scaled one in the rare cases
 * GsVecNorm describes). */
int GsVecAXPYNorm(GsVec y, double alpha, GsVec x, double *norm);
/* *dot = x . y and *nrm2 = y . y, in one pass. */
int GsVecDotNorm2(GsVec x, GsVec y, double *dot, double *nrm2);
/* The update of a (Jacobi-)preconditioned CG step in one pass: x += alpha p and r -= alpha q,
 * then, over the new r, *rwr = sum_i r_i z_i with z_i = w_i r_i rounded to the vector's type
 * (what GsVecPointwiseMult(z, w, r) then GsVecDot(r, z) give, up to summation order) and
 * *rr = r . r. w may be NULL (w_i = 1: *rwr = *rr); rwr or rr may be NULL when not wanted. *rr is
 * the plain sum of squares in double (no rescaling as in GsVecNorm). x and p may both be NULL:
 * then only r -= alpha q and the reductions, with the same bits for r, *rwr and *rr as with them
 * (CG then updates x in GsVecAXPYPointwiseMultAYPX). x and r must be different vectors; p, q and w
 * may be any vectors, x or r among them (they then stand for the values on entry). */
int GsVecAXPYPair(GsVec x, GsVec r, double alpha, GsVec p, GsVec q, GsVec w, double *rwr,
                  double *rr);
/* y = w .* x + beta y, with w[i] * x[i] rounded to the vector's type before the sum (the result of
 * GsVecPointwiseMult(z, w, x) then GsVecAXPBY(y, 1, beta, z)); w may be NULL (y = x + beta y). y is
 * not read when beta == 0. w and x may be y. */
int GsVecPointwiseMultAYPX(GsVec y, double beta, GsVec w, GsVec x);
/* The x and p updates of a CG step in one pass: z += alpha y, then y = w .* x + beta y, both with
 * the y on entry. z gets the bits GsVecAXPY(z, alpha, y) gives and y those of
 * GsVecPointwiseMultAYPX(y, beta, w, x), on the same back end. w may be NULL (y = x + beta y). y is
 * always read, also when beta == 0 (z needs it; y is then w .* x, or x, without the beta term, as
 * in GsVecPointwiseMultAYPX). w and x may be y; z must be none of y, w and x. */
int GsVecAXPYPointwiseMultAYPX(GsVec z, double alpha, GsVec y, double beta, GsVec w, GsVec x);

/* ---- Scalars where the vectors are ----------------------------------------------------------
 * A GsScalars holds n doubles in the memory where the context computes (device memory on a GPU).
 * The *Scalars operations write their reductions into it and take their coefficients from it, so
 * a solver can queue step after step without waiting for the host in between: a GPU back end
 * then never idles between the kernels of an iteration. The host reads the values with
 * GsScalarsGet (waits for the work queued so far) or GsScalarsReadBegin ... GsScalarsReadEnd,
 * which waits only for the work queued before the Begin, so work queued in between keeps the
 * device busy while the host waits.
 *
 * A coefficient from a GsScalars is a ratio, s[num] / s[den], taken as a step length: an
 * operation given one whose denominator is not positive (zero, negative or NaN) does nothing at
 * all, writes no vector and no result, as a solver that stops on such a breakdown needs (CG's
 * p . Ap <= 0). */
typedef struct {
  GsScalars s;
  int num, den; /* entries of s */
} GsScalarRatio;

/* n >= 1 scalars, all 0. */
int GsScalarsCreate(GsContext ctx, int n, GsScalars *s);
/* Free them and set *s = NULL; safe on NULL and twice. */
int GsScalarsDestroy(GsScalars *s);
int GsScalarsGetSize(GsScalars s, int *n);
/* s[first .. first + count - 1] = v[0 .. count - 1], in order with the queued work. */
int GsScalarsSet(GsScalars s, int first, int count, const double *v);
/* v[0 .. count - 1] = s[first .. first + count - 1], after the work queued so far. */
int GsScalarsGet(GsScalars s, int first, int count, double *v);
/* Queue a read of s[first .. first + count - 1] behind the work queued so far; GsScalarsReadEnd
 * waits for it (only) and gives the values. One read at a time per GsScalars (a second Begin
 * before the End is GS_ERR_WRONG_STATE). */
int GsScalarsReadBegin(GsScalars s, int first, int count);
int GsScalarsReadEnd(GsScalars s, double *v);

/* GsVecAXPYPair with alpha = a.s[a.num] / a.s[a.den] (nothing done unless a.s[a.den] > 0) and the
 * results to s: s[res] = r . r and, when w is given, s[res + 1] = r . (w .* r) (the bits
 * GsVecAXPYPair gives for the same alpha). */
int GsVecAXPYPairScalars(GsVec x, GsVec r, GsScalarRatio a, GsVec p, GsVec q, GsVec w, GsScalars s,
                         int res);
/* GsVecAXPYPointwiseMultAYPX with alpha and beta from GsScalars (nothing done unless both
 * denominators are > 0). z and y get the bits GsVecAXPYPointwiseMultAYPX gives for the same
 * alpha and beta, except that y is always read and a beta of 0 adds 0 y. */
int GsVecAXPYPointwiseMultAYPXScalars(GsVec z, GsScalarRatio alpha, GsVec y, GsScalarRatio beta,
                                      GsVec w, GsVec x);

/* Fill with uniform random numbers in [lo, hi), reproducible from seed on every back end. */
int GsVecSetRandom(GsVec x, uint64_t seed, double lo, double hi);

#ifdef __cplusplus
}
#endif
#endif
