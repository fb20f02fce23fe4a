/* Periodic 2D stencils with pointwise powers: argument checks, term bookkeeping, dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"

#define R GS_STENCIL_MAX_RADIUS
#define SIDE (2 * R + 1)

struct GsStencil_s {
  GsContext ctx;
  GsStencilDesc desc;
  GsInt len; /* nx ny batch */
  int nterms;
  int input[GS_STENCIL_MAX_TERMS], power[GS_STENCIL_MAX_TERMS];
  double k[GS_STENCIL_MAX_TERMS][SIDE * SIDE]; /* centred weights, [dy + R][dx + R] */
  int has_sum[GS_STENCIL_MAX_TERMS];           /* conservative form with this sum */
  double sum[GS_STENCIL_MAX_TERMS];
  int combined[GS_STENCIL_MAX_COMBINATIONS]; /* defined (GsStencilSetCombination) */
  double coef[GS_STENCIL_MAX_COMBINATIONS][GS_STENCIL_MAX_INPUTS];
  int wide;           /* -stencil_wide_index: 64-bit grid indices even where 32 bits hold them */
  GsInt tiles;        /* -stencil_tiles_per_block: tiles a GPU block takes (0: automatic) */
  int shapes;         /* -stencil_shapes: kernels compiled for the stencil's shape (1, default) */
  const char *kernel; /* the kernel the last GsStencilApply ran ("none" before one) */
  GsStencilInfo info; /* packed from the terms when stale */
  int stale;
  GsLogEvent ev_apply;
};

int GsStencilCreate(GsContext ctx, const GsStencilDesc *desc, GsStencil *st) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, desc);
  GsCheckHandle(ctx, st);
  *st = NULL;
  const GsInt batch = desc->batch ? desc->batch : 1;
  GsCheck(desc->nx >= 1 && desc->ny >= 1 && batch >= 1, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil grid nx = %lld, ny = %lld, batch = %lld: each must be >= 1", (long long)desc->nx,
          (long long)desc->ny, (long long)desc->batch);
  GsCheck(desc->ny <= GS_INT_MAX / desc->nx && batch <= GS_INT_MAX / (desc->nx * desc->ny), ctx,
          GS_ERR_ARG_OUTOFRANGE, "stencil grid %lld x %lld x %lld overflows the index range",
          (long long)desc->nx, (long long)desc->ny, (long long)batch);
  GsCheck(desc->inputs >= 1 && desc->inputs <= GS_STENCIL_MAX_INPUTS, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil with %d inputs: 1 to %d", desc->inputs, GS_STENCIL_MAX_INPUTS);
  GsCheck(desc->dt == GS_DOUBLE || desc->dt == GS_FLOAT, ctx, GS_ERR_ARG_TYPE,
          "unknown data type %d", (int)desc->dt);
  GsCheck(ctx->ops->stencil.apply != NULL, ctx, GS_ERR_UNSUPPORTED,
          "back end %s has no stencil kernel", ctx->resource);
  GsStencil S = calloc(1, sizeof *S);
  GsCheck(S != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a stencil");
  S->ctx = ctx;
  S->desc = *desc;
  S->desc.batch = batch;
  S->len = desc->nx * desc->ny * batch;
  S->stale = 1;
  S->shapes = 1;
  S->kernel = "none";
  ctx->nobjects++;
  *st = S;
  int ierr = GsLogEventRegister(ctx, "StencilApply", &S->ev_apply);
  if (!ierr) ierr = GsOptionsGetBool(ctx, "-stencil_wide_index", &S->wide, NULL);
  if (!ierr) ierr = GsOptionsGetInt(ctx, "-stencil_tiles_per_block", &S->tiles, NULL);
  if (!ierr) ierr = GsOptionsGetBool(ctx, "-stencil_shapes", &S->shapes, NULL);
  if (!ierr && S->tiles < 0)
    ierr =
        GsError(ctx, GS_ERR_ARG_OUTOFRANGE,
                "-stencil_tiles_per_block %lld: must be >= 0 (0: automatic)", (long long)S->tiles);
  if (ierr) {
    GsStencilDestroy(st);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

int GsStencilDestroy(GsStencil *st) {
  if (!st || !*st) return 0;
  (*st)->ctx->nobjects--;
  free(*st);
  *st = NULL;
  return 0;
}

/* Checks shared by both ways of adding a term. */
static int check_term(GsStencil S, int input, int power, int rx, int ry) {
  GsContext ctx = S->ctx;
  const int ni = S->desc.inputs;
  GsCheck(input >= 0 && input < ni + GS_STENCIL_MAX_COMBINATIONS, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil term on input %d: the stencil has inputs 0 to %d and combinations %d to %d",
          input, ni - 1, ni, ni + GS_STENCIL_MAX_COMBINATIONS - 1);
  GsCheck(input < ni || S->combined[input - ni], ctx, GS_ERR_ARG_INCOMP,
          "stencil term on input %d, a combination that is not defined: call "
          "GsStencilSetCombination for it first",
          input);
  GsCheck(power >= 1 && power <= 3, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil term with power %d: 1, 2 or 3", power);
  GsCheck(rx >= 0 && rx <= R && ry >= 0 && ry <= R, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil term of radii %d (x) and %d (y): each must be in [0, %d]", rx, ry, R);
  GsCheck(2 * rx + 1 <= S->desc.nx && 2 * ry + 1 <= S->desc.ny, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil term of radii %d x %d does not fit a periodic grid of %lld x %lld points "
          "(2 r + 1 points along each axis at most)",
          rx, ry, (long long)S->desc.nx, (long long)S->desc.ny);
  return 0;
}

/* The term for (input, power), created when absent. */
static int term_for(GsStencil S, int input, int power, int *t) {
  GsContext ctx = S->ctx;
  for (int k = 0; k < S->nterms; k++)
    if (S->input[k] == input && S->power[k] == power) {
      *t = k;
      return 0;
    }
  GsCheck(S->nterms < GS_STENCIL_MAX_TERMS, ctx, GS_ERR_ARG_OUTOFRANGE,
          "a stencil holds at most %d (input, power) terms", GS_STENCIL_MAX_TERMS);
  *t = S->nterms++;
  S->input[*t] = input;
  S->power[*t] = power;
  S->has_sum[*t] = 0;
  memset(S->k[*t], 0, sizeof S->k[*t]);
  return 0;
}

/* Add scale * (the term's weights) at the centred offsets; every product is checked finite first,
 * so a bad weight leaves the stencil as it was. w(dx, dy) gives the weight at an offset. */
typedef double (*WeightFn)(const double *a, const double *b, int rx, int ry, int dx, int dy);
static double full_weight(const double *a, const double *b, int rx, int ry, int dx, int dy) {
  (void)b;
  (void)ry;
  return a[(dy + ry) * (2 * rx + 1) + dx + rx];
}
static double tensor_weight(const double *a, const double *b, int rx, int ry, int dx, int dy) {
  return a[dx + rx] * (b ? b[dy + ry] : 1.0);
}
static int add_weights(GsStencil S, int input, int power, int rx, int ry, WeightFn fn,
                       const double *a, const double *b, double scale) {
  GsCall(check_term(S, input, power, rx, ry));
  for (int dy = -ry; dy <= ry; dy++)
    for (int dx = -rx; dx <= rx; dx++) {
      const double w = scale * fn(a, b, rx, ry, dx, dy);
      GsCheck(isfinite(w), S->ctx, GS_ERR_NOT_FINITE,
              "stencil weight at offset (%d, %d) is %g; weights must be finite", dx, dy, w);
    }
  int t = 0;
  GsCall(term_for(S, input, power, &t));
  for (int dy = -ry; dy <= ry; dy++)
    for (int dx = -rx; dx <= rx; dx++)
      S->k[t][(dy + R) * SIDE + dx + R] += scale * fn(a, b, rx, ry, dx, dy);
  S->stale = 1;
  return 0;
}

int GsStencilSetCombination(GsStencil st, int input, const double *coeffs) {
  GsCheckHandle(NULL, st);
  const int ni = st->desc.inputs;
  GsCheck(input >= ni && input < ni + GS_STENCIL_MAX_COMBINATIONS, st->ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil combination %d: with %d inputs, combinations are inputs %d to %d", input, ni, ni,
          ni + GS_STENCIL_MAX_COMBINATIONS - 1);
  GsCheck(coeffs != NULL, st->ctx, GS_ERR_ARG_NULL, "stencil combination coefficients are NULL");
  for (int j = 0; j < ni; j++)
    GsCheck(isfinite(coeffs[j]), st->ctx, GS_ERR_NOT_FINITE,
            "stencil combination %d: coefficient %d is %g; coefficients must be finite", input, j,
            coeffs[j]);
  st->combined[input - ni] = 1;
  for (int j = 0; j < GS_STENCIL_MAX_INPUTS; j++)
    st->coef[input - ni][j] = j < ni ? coeffs[j] : 0.0;
  st->stale = 1;
  return 0;
}

int GsStencilAddTerm(GsStencil st, int input, int power, int rx, int ry, const double *weights,
                     double scale) {
  GsCheckHandle(NULL, st);
  GsCheck(weights != NULL, st->ctx, GS_ERR_ARG_NULL, "stencil weights are NULL");
  GsCall(add_weights(st, input, power, rx, ry, full_weight, weights, NULL, scale));
  return 0;
}

int GsStencilAddTensorTerm(GsStencil st, int input, int power, int rx, const double *kx, int ry,
                           const double *ky, double scale) {
  GsCheckHandle(NULL, st);
  GsCheck(kx != NULL, st->ctx, GS_ERR_ARG_NULL, "stencil weights kx are NULL");
  GsCheck(ky != NULL || ry == 0, st->ctx, GS_ERR_ARG_INCOMP,
          "stencil weights ky are NULL with ry = %d (NULL means the weight 1, radius 0)", ry);
  GsCall(add_weights(st, input, power, rx, ry, tensor_weight, kx, ky, scale));
  return 0;
}

int GsStencilSetTermSum(GsStencil st, int input, int power, double sum) {
  GsCheckHandle(NULL, st);
  GsCheck(isfinite(sum), st->ctx, GS_ERR_NOT_FINITE, "stencil term sum %g must be finite", sum);
  GsCall(check_term(st, input, power, 0, 0));
  int t = 0;
  GsCall(term_for(st, input, power, &t));
  st->has_sum[t] = 1;
  st->sum[t] = sum;
  st->stale = 1;
  return 0;
}

int GsStencilGetTerm(GsStencil st, int input, int power, int *rx, int *ry, double *weights) {
  GsCheckHandle(NULL, st);
  GsCheck(rx && ry && weights, st->ctx, GS_ERR_ARG_NULL, "%s is NULL",
          !rx   ? "rx"
          : !ry ? "ry"
                : "weights");
  *rx = *ry = -1;
  for (int t = 0; t < st->nterms; t++) {
    if (st->input[t] != input || st->power[t] != power) continue;
    int ex = 0, ey = 0; /* extents of the nonzero weights */
    for (int dy = -R; dy <= R; dy++)
      for (int dx = -R; dx <= R; dx++)
        if (st->k[t][(dy + R) * SIDE + dx + R] != 0) {
          ex = abs(dx) > ex ? abs(dx) : ex;
          ey = abs(dy) > ey ? abs(dy) : ey;
        }
    for (int dy = -ey; dy <= ey; dy++)
      for (int dx = -ex; dx <= ex; dx++)
        weights[(dy + ey) * (2 * ex + 1) + dx + ex] = st->k[t][(dy + R) * SIDE + dx + R];
    *rx = ex;
    *ry = ey;
  }
  return 0;
}

/* The back ends' view: nonzero weights term by term, column by column; radii of what is used. */
static void pack(GsStencil S) {
  GsStencilInfo *si = &S->info;
  const int ni = S->desc.inputs, nsrc = ni + GS_STENCIL_MAX_COMBINATIONS;
  memset(si, 0, sizeof *si);
  si->nx = S->desc.nx;
  si->ny = S->desc.ny;
  si->batch = S->desc.batch;
  si->wide = S->wide;
  si->tiles = S->tiles;
  si->shapes = S->shapes;
  /* Sources: the inputs, then the combinations' nonzero coefficients in input order. */
  for (int j = 0; j < ni; j++) {
    si->nsrc[j] = 1;
    si->sidx[j][0] = (signed char)j;
    si->scoef[j][0] = 1.0;
  }
  for (int c = 0; c < GS_STENCIL_MAX_COMBINATIONS; c++)
    for (int j = 0; j < ni && S->combined[c]; j++)
      if (S->coef[c][j] != 0) {
        const int q = si->nsrc[ni + c]++;
        si->sidx[ni + c][q] = (signed char)j;
        si->scoef[ni + c][q] = S->coef[c][j];
      }
  /* The centre-only terms, then those that reach beyond the point, each by source, then by power
   * (a GPU tile stages each source once, and adds the centre-only terms as it stages the first). */
  int order[GS_STENCIL_MAX_TERMS], pt[GS_STENCIL_MAX_TERMS], no = 0;
  for (int t = 0; t < S->nterms; t++) {
    pt[t] = 1;
    for (int q = 0; q < SIDE * SIDE; q++)
      if (q != R * SIDE + R && S->k[t][q] != 0) pt[t] = 0;
  }
  for (int pass = 1; pass >= 0; pass--)
    for (int in = 0; in < nsrc; in++)
      for (int p = 1; p <= 3; p++)
        for (int t = 0; t < S->nterms; t++)
          if (S->input[t] == in && S->power[t] == p && pt[t] == pass) order[no++] = t;
  int q = 0;
  for (int o = 0; o < no; o++) {
    const int t = order[o];
    const int nt = si->nterms, cons = S->has_sum[t];
    if (si->nsrc[S->input[t]] == 0) continue; /* a combination of zero coefficients */
    si->input[nt] = (signed char)S->input[t];
    si->power[nt] = (signed char)S->power[t];
    si->conservative[nt] = (signed char)cons;
    si->total[nt] = cons ? S->sum[t] : 0.0;
    si->pointw[nt] = cons ? S->sum[t] : S->k[t][R * SIDE + R];
    si->first[nt] = (short)q;
    for (int c = 0; c < SIDE; c++) {
      si->lo[nt][c] = SIDE;
      si->hi[nt][c] = -1;
    }
    for (int dx = -R; dx <= R; dx++) /* column by column: the GPU kernel's order */
      for (int dy = -R; dy <= R; dy++) {
        const double w = S->k[t][(dy + R) * SIDE + dx + R];
        if (w == 0 || (cons && dx == 0 && dy == 0)) continue; /* conservative: implied by sum */
        si->ox[q] = (signed char)dx;
        si->oy[q] = (signed char)dy;
        si->w[q++] = w;
        si->k[nt][(dx + R) * SIDE + dy + R] = w;
        if (dy + R < si->lo[nt][dx + R]) si->lo[nt][dx + R] = (signed char)(dy + R);
        if (dy + R > si->hi[nt][dx + R]) si->hi[nt][dx + R] = (signed char)(dy + R);
        si->rx = abs(dx) > si->rx ? abs(dx) : si->rx;
        si->ry = abs(dy) > si->ry ? abs(dy) : si->ry;
      }
    /* A term whose weights cancelled (and that has no nonzero sum) is left out. */
    if (q > si->first[nt] || (cons && S->sum[t] != 0)) {
      si->nterms++;
      si->npoint += pt[t];
    }
  }
  si->first[si->nterms] = (short)q;
  /* npoint: the centre-only terms kept, all before the others; fold when each is of power 1 on an
   * input of the first staged source (then their weights by its inputs' positions). */
  si->fold = si->npoint < si->nterms;
  const int fs = si->fold ? si->input[si->npoint] : 0;
  for (int t = 0; t < si->npoint && si->fold; t++) {
    int pos = -1;
    for (int j = 0; j < si->nsrc[fs]; j++)
      if (si->input[t] < ni && si->power[t] == 1 && si->sidx[fs][j] == si->input[t]) pos = j;
    if (pos < 0)
      si->fold = 0;
    else
      si->foldw[pos] = si->pointw[t];
  }
  if (!si->fold) memset(si->foldw, 0, sizeof si->foldw);
  S->stale = 0;
}

int GsStencilApply(GsStencil st, const GsVec x[], GsVec y) {
  GsCheckHandle(NULL, st);
  GsContext ctx = st->ctx;
  GsCheck(x != NULL, ctx, GS_ERR_ARG_NULL, "the array of stencil inputs is NULL");
  const GsDataType dt = st->desc.dt;
  GsInt n = 0;
  char name[32];
  for (int k = 0; k < st->desc.inputs; k++) {
    snprintf(name, sizeof name, "x[%d]", k);
    GsCall(GsVecCheckFor(ctx, x[k], name, "the stencil", dt, &n));
    GsCheck(n == st->len, ctx, GS_ERR_ARG_SIZE,
            "stencil input x[%d] has %lld entries; the grid has %lld x %lld x %lld = %lld", k,
            (long long)n, (long long)st->desc.nx, (long long)st->desc.ny, (long long)st->desc.batch,
            (long long)st->len);
    GsCheck(x[k] != y, ctx, GS_ERR_ARG_INCOMP,
            "the stencil output y is also input x[%d]; use another vector", k);
  }
  GsCall(GsVecCheckFor(ctx, y, "y", "the stencil", dt, &n));
  GsCheck(n == st->len, ctx, GS_ERR_ARG_SIZE,
          "stencil output y has %lld entries; the grid has %lld", (long long)n, (long long)st->len);
  if (st->stale) pack(st);
  const void *px[GS_STENCIL_MAX_INPUTS] = {NULL};
  void *py = NULL;
  for (int k = 0; k < st->desc.inputs; k++) {
    void *p = NULL;
    GsCall(GsVecGetComputeArray(x[k], GS_ACCESS_READ, &p));
    px[k] = p;
  }
  GsCall(GsVecGetComputeArray(y, GS_ACCESS_WRITE, &py));
  GsCall(GsLogEventBegin(ctx, st->ev_apply));
  const int ierr = ctx->ops->stencil.apply(ctx, &st->info, dt, px, py, &st->kernel);
  if (ierr) {
    GsLogEventCancel(ctx, st->ev_apply);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  /* Bytes: each distinct input read once, y written; flops: a multiply-add per weight and point,
   * the powers and, for a combination of k inputs, its k products and k - 1 sums. */
  int distinct = 0;
  for (int k = 0; k < st->desc.inputs; k++) {
    int seen = 0;
    for (int j = 0; j < k; j++)
      seen |= x[j] == x[k];
    distinct += !seen;
  }
  const GsStencilInfo *si = &st->info;
  double flops = 2.0 * si->first[si->nterms];
  for (int t = 0; t < si->nterms; t++) /* conservative: a difference per weight */
    flops += si->nsrc[si->input[t]] * (si->power[t] + 1) - 2 +
             (si->conservative[t] ? si->first[t + 1] - si->first[t] + 2 : 0);
  const double es = (double)GsDataTypeSize(dt), len = (double)st->len;
  GsCall(GsLogEventEnd(ctx, st->ev_apply, (distinct + 1) * es * len, flops * len));
  return 0;
}

int GsStencilGetKernel(GsStencil st, const char **name) {
  GsCheckHandle(NULL, st);
  GsCheckHandle(st->ctx, name);
  *name = st->kernel;
  return 0;
}
