/* Vectors: argument checks, the host/device validity mask, event logging, dispatch to the back end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"

static int mem_bit(GsMemType m) {
  return m == GS_MEM_DEVICE ? GS_VALID_DEVICE : GS_VALID_HOST;
}

/* A vector handed to an operation must exist and have no array checked out. */
#define CHECK_VEC(v)                                                                               \
  do {                                                                                             \
    GsCheck((v) != NULL, NULL, GS_ERR_ARG_NULL, "vector %s is NULL", #v);                          \
    GsCheck((v)->access == GS_ACCESS_NONE, (v)->ctx, GS_ERR_WRONG_STATE,                           \
            "vector %s has an array checked out by GsVecGetArray*; restore it first", #v);         \
  } while (0)

/* Two vectors in one operation must share context, length and type. */
#define CHECK_COMPAT(x, y)                                                                         \
  do {                                                                                             \
    GsCheck((x)->ctx == (y)->ctx, (x)->ctx, GS_ERR_ARG_INCOMP,                                     \
            "vectors %s and %s belong to different contexts", #x, #y);                             \
    GsCheck((x)->n == (y)->n, (x)->ctx, GS_ERR_ARG_SIZE,                                           \
            "vector %s has %lld entries but %s has %lld", #x, (long long)(x)->n, #y,               \
            (long long)(y)->n);                                                                    \
    GsCheck((x)->dt == (y)->dt, (x)->ctx, GS_ERR_ARG_TYPE, "vector %s is %s but %s is %s", #x,     \
            GsDataTypeName((x)->dt), #y, GsDataTypeName((y)->dt));                                 \
  } while (0)

/* Run expr inside event evid; on failure close the event uncounted, so that the next call of the
 * operation can begin it again, and propagate the error. */
#define EV_TRY(ctx, evid, expr)                                                                    \
  do {                                                                                             \
    int ev_ierr_ = (expr);                                                                         \
    if (ev_ierr_) {                                                                                \
      GsLogEventCancel((ctx), (evid));                                                             \
      return GsErrorTrace(ev_ierr_, __FILE__, __LINE__, __func__);                                 \
    }                                                                                              \
  } while (0)
#define EV_BEGIN(ctx, e) GsCall(GsLogEventBegin((ctx), (ctx)->ev.e))
#define EV_END(ctx, e, bytes, flops) GsCall(GsLogEventEnd((ctx), (ctx)->ev.e, (bytes), (flops)))

/* Make sure the copy in `mem` exists (allocating it) without copying anything into it. */
static int ensure_alloc(GsVec v, GsMemType mem) {
  GsContext ctx = v->ctx;
  if (!v->bytes) return 0;
  if (mem == GS_MEM_HOST) {
    if (v->host) return 0;
    if (ctx->ops->host_alloc) {
      GsCall(ctx->ops->host_alloc(ctx, v->bytes, &v->host));
      v->host_owned = 2;
    } else {
      GsCall(GsMallocHost(ctx, v->bytes, &v->host));
      v->host_owned = 1;
    }
  } else {
    if (v->dev) return 0;
    GsCall(ctx->ops->mem_alloc(ctx, v->bytes, &v->dev));
    v->dev_owned = 1;
  }
  return 0;
}

/* Make the copy in `mem` valid, moving data from the other space if it is stale. */
static int ensure_valid(GsVec v, GsMemType mem) {
  GsContext ctx = v->ctx;
  GsCheck(mem == GS_MEM_HOST || ctx->ops->mem == GS_MEM_DEVICE, ctx, GS_ERR_MEMTYPE,
          "back end %s has no device memory; use GS_MEM_HOST", ctx->resource);
  GsCall(ensure_alloc(v, mem));
  if (v->valid & mem_bit(mem)) return 0;
  if (v->valid) {
    int to_dev = mem == GS_MEM_DEVICE;
    GsLogEvent ev = to_dev ? ctx->ev.mem_htod : ctx->ev.mem_dtoh;
    GsCall(GsLogEventBegin(ctx, ev));
    EV_TRY(ctx, ev,
           ctx->ops->memcpy(ctx, to_dev ? v->dev : v->host, mem, to_dev ? v->host : v->dev,
                            to_dev ? GS_MEM_HOST : GS_MEM_DEVICE, v->bytes));
    GsCall(GsLogEventEnd(ctx, ev, (double)v->bytes, 0));
  }
  v->valid |= mem_bit(mem);
  return 0;
}

/* Pointer to v where the back end computes, for reading (valid data) or writing (only that copy
 * stays valid). */
static int compute_ptr(GsVec v, int access, void **p) {
  GsMemType mem = v->ctx->ops->mem;
  if (access & GS_ACCESS_READ)
    GsCall(ensure_valid(v, mem));
  else
    GsCall(ensure_alloc(v, mem));
  if (access & GS_ACCESS_WRITE) v->valid = mem_bit(mem);
  *p = mem == GS_MEM_DEVICE ? v->dev : v->host;
  return 0;
}

GS_INTERN int GsVecGetComputeArray(GsVec v, int access, void **p) {
  GsCall(compute_ptr(v, access, p));
  return 0;
}

static int vec_new(GsContext ctx, GsInt n, GsDataType dt, GsVec *v) {
  GsCheck(ctx != NULL, NULL, GS_ERR_ARG_NULL, "context is NULL");
  GsCheck(v != NULL, ctx, GS_ERR_ARG_NULL, "output vector pointer is NULL");
  *v = NULL;
  GsCheck(n >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "vector length %lld is negative", (long long)n);
  size_t es = GsDataTypeSize(dt);
  GsCheck(es > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "unknown data type %d", (int)dt);
  GsCheck((uint64_t)n <= SIZE_MAX / es, ctx, GS_ERR_ARG_OUTOFRANGE,
          "vector length %lld of %s needs more bytes than size_t can count", (long long)n,
          GsDataTypeName(dt));
  GsVec x = calloc(1, sizeof *x);
  GsCheck(x != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a vector header");
  x->ctx = ctx;
  x->n = n;
  x->dt = dt;
  x->bytes = (size_t)n * es;
  *v = x;
  return 0;
}

static void vec_free(GsVec x) {
  GsContext ctx = x->ctx;
  if (x->host_owned == 2)
    ctx->ops->host_free(ctx, x->host);
  else if (x->host_owned == 1)
    free(x->host);
  if (x->dev_owned) ctx->ops->mem_free(ctx, x->dev);
  free(x);
}

int GsVecCreate(GsContext ctx, GsInt n, GsDataType dt, GsVec *v) {
  GsCall(vec_new(ctx, n, dt, v));
  int ierr = ensure_alloc(*v, ctx->ops->mem);
  if (ierr) {
    vec_free(*v);
    *v = NULL;
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  ctx->nobjects++;
  return 0;
}

int GsVecCreateWithArray(GsContext ctx, GsInt n, GsDataType dt, GsMemType mem, void *array,
                         GsVec *v) {
  GsCheck(ctx != NULL, NULL, GS_ERR_ARG_NULL, "context is NULL");
  GsCheck(mem == GS_MEM_HOST || mem == GS_MEM_DEVICE, ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown memory type %d", (int)mem);
  GsCheck(mem == GS_MEM_HOST || ctx->ops->mem == GS_MEM_DEVICE, ctx, GS_ERR_MEMTYPE,
          "back end %s has no device memory to wrap; use GS_MEM_HOST", ctx->resource);
  GsCheck(n >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "vector length %lld is negative", (long long)n);
  GsCheck(array != NULL || n == 0, ctx, GS_ERR_ARG_NULL,
          "array is NULL for a vector of %lld entries", (long long)n);
  GsCall(vec_new(ctx, n, dt, v));
  GsVec x = *v;
  if (mem == GS_MEM_HOST)
    x->host = array;
  else
    x->dev = array;
  x->valid = mem_bit(mem);
  ctx->nobjects++;
  return 0;
}

int GsVecDuplicate(GsVec x, GsVec *y) {
  GsCheck(x != NULL, NULL, GS_ERR_ARG_NULL, "vector x is NULL");
  GsCall(GsVecCreate(x->ctx, x->n, x->dt, y));
  return 0;
}

int GsVecDestroy(GsVec *v) {
  if (!v || !*v) return 0;
  GsVec x = *v;
  GsCheck(x->access == GS_ACCESS_NONE, x->ctx, GS_ERR_WRONG_STATE,
          "vector destroyed while an array is checked out; restore it first");
  x->ctx->nobjects--;
  vec_free(x);
  *v = NULL;
  return 0;
}

int GsVecGetSize(GsVec v, GsInt *n) {
  GsCheckHandle(NULL, v);
  GsCheckHandle(v->ctx, n);
  *n = v->n;
  return 0;
}

int GsVecGetDataType(GsVec v, GsDataType *dt) {
  GsCheckHandle(NULL, v);
  GsCheckHandle(v->ctx, dt);
  *dt = v->dt;
  return 0;
}

int GsVecGetContext(GsVec v, GsContext *ctx) {
  GsCheckHandle(NULL, v);
  GsCheckHandle(v->ctx, ctx);
  *ctx = v->ctx;
  return 0;
}

/* ---- Array access -------------------------------------------------------------------------- */

static int get_array(GsVec v, GsMemType mem, int access, void **array) {
  GsCheck(v != NULL, NULL, GS_ERR_ARG_NULL, "vector is NULL");
  GsContext ctx = v->ctx;
  GsCheck(array != NULL, ctx, GS_ERR_ARG_NULL, "array output pointer is NULL");
  GsCheck(mem == GS_MEM_HOST || mem == GS_MEM_DEVICE, ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown memory type %d", (int)mem);
  GsCheck(v->access == GS_ACCESS_NONE, ctx, GS_ERR_WRONG_STATE,
          "vector already has an array checked out; restore it before getting another");
  GsCheck(mem == GS_MEM_HOST || ctx->ops->mem == GS_MEM_DEVICE, ctx, GS_ERR_MEMTYPE,
          "back end %s has no device memory; use GS_MEM_HOST", ctx->resource);
  if (access & GS_ACCESS_READ)
    GsCall(ensure_valid(v, mem));
  else
    GsCall(ensure_alloc(v, mem));
  /* Work queued on the context's stream may still be using the array; the caller (host code, or
   * a kernel on another stream) must not see it before that work is done. */
  if (ctx->ops->synchronize) GsCall(ctx->ops->synchronize(ctx));
  v->access = access;
  v->access_mem = mem;
  v->access_ptr = mem == GS_MEM_DEVICE ? v->dev : v->host;
  *array = v->access_ptr;
  return 0;
}

static int restore_array(GsVec v, int access, void **array) {
  GsCheck(v != NULL, NULL, GS_ERR_ARG_NULL, "vector is NULL");
  GsContext ctx = v->ctx;
  GsCheck(array != NULL, ctx, GS_ERR_ARG_NULL, "array pointer is NULL");
  GsCheck(v->access != GS_ACCESS_NONE, ctx, GS_ERR_WRONG_STATE,
          "restoring an array that was not checked out");
  GsCheck(v->access == access, ctx, GS_ERR_WRONG_STATE,
          "array was checked out with a different GsVecGetArray* variant than this restore");
  GsCheck(*array == v->access_ptr, ctx, GS_ERR_ARG_INCOMP,
          "the array restored is not the one GsVecGetArray* returned");
  if (access & GS_ACCESS_WRITE) v->valid = mem_bit(v->access_mem);
  v->access = GS_ACCESS_NONE;
  v->access_ptr = NULL;
  *array = NULL;
  return 0;
}

int GsVecGetArray(GsVec v, GsMemType mem, void **array) {
  GsCall(get_array(v, mem, GS_ACCESS_READWRITE, array));
  return 0;
}
int GsVecRestoreArray(GsVec v, void **array) {
  GsCall(restore_array(v, GS_ACCESS_READWRITE, array));
  return 0;
}
int GsVecGetArrayRead(GsVec v, GsMemType mem, const void **array) {
  GsCall(get_array(v, mem, GS_ACCESS_READ, (void **)array));
  return 0;
}
int GsVecRestoreArrayRead(GsVec v, const void **array) {
  GsCall(restore_array(v, GS_ACCESS_READ, (void **)array));
  return 0;
}
int GsVecGetArrayWrite(GsVec v, GsMemType mem, void **array) {
  GsCall(get_array(v, mem, GS_ACCESS_WRITE, array));
  return 0;
}
int GsVecRestoreArrayWrite(GsVec v, void **array) {
  GsCall(restore_array(v, GS_ACCESS_WRITE, array));
  return 0;
}

int GsVecSetValuesHost(GsVec v, const void *values) {
  CHECK_VEC(v);
  GsCheck(values != NULL || v->n == 0, v->ctx, GS_ERR_ARG_NULL, "values is NULL");
  void *p = NULL;
  GsCall(GsVecGetArrayWrite(v, GS_MEM_HOST, &p));
  if (v->bytes) memcpy(p, values, v->bytes);
  GsCall(GsVecRestoreArrayWrite(v, &p));
  return 0;
}

int GsVecGetValuesHost(GsVec v, void *values) {
  CHECK_VEC(v);
  GsCheck(values != NULL || v->n == 0, v->ctx, GS_ERR_ARG_NULL, "values is NULL");
  const void *p = NULL;
  GsCall(GsVecGetArrayRead(v, GS_MEM_HOST, &p));
  if (v->bytes) memcpy(values, p, v->bytes);
  GsCall(GsVecRestoreArrayRead(v, &p));
  return 0;
}

/* ---- Operations ---------------------------------------------------------------------------- */

#define NB(v) ((double)(v)->bytes) /* bytes of one pass over v */
#define NF(v) ((double)(v)->n)

int GsVecSet(GsVec x, double alpha) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  void *px = NULL;
  EV_BEGIN(ctx, vec_set);
  EV_TRY(ctx, ctx->ev.vec_set, compute_ptr(x, GS_ACCESS_WRITE, &px));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_set, ctx->ops->vec.set(ctx, x->dt, x->n, px, alpha));
  EV_END(ctx, vec_set, NB(x), 0);
  return 0;
}

int GsVecCopy(GsVec x, GsVec y) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  GsContext ctx = x->ctx;
  GsCheck(x->ctx == y->ctx, ctx, GS_ERR_ARG_INCOMP, "vectors x and y belong to different contexts");
  GsCheck(x->n == y->n, ctx, GS_ERR_ARG_SIZE, "vector x has %lld entries but y has %lld",
          (long long)x->n, (long long)y->n);
  if (x == y) return 0;
  void *px = NULL, *py = NULL;
  EV_BEGIN(ctx, vec_copy);
  EV_TRY(ctx, ctx->ev.vec_copy, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ctx->ev.vec_copy, compute_ptr(y, GS_ACCESS_WRITE, &py));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_copy, ctx->ops->vec.copy(ctx, x->n, x->dt, px, y->dt, py));
  EV_END(ctx, vec_copy, NB(x) + NB(y), 0);
  return 0;
}

int GsVecScale(GsVec x, double alpha) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  void *px = NULL;
  EV_BEGIN(ctx, vec_scale);
  EV_TRY(ctx, ctx->ev.vec_scale, compute_ptr(x, GS_ACCESS_READWRITE, &px));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_scale, ctx->ops->vec.scale(ctx, x->dt, x->n, px, alpha));
  EV_END(ctx, vec_scale, 2 * NB(x), NF(x));
  return 0;
}

static int axpby(GsVec y, double alpha, double beta, GsVec x, GsLogEvent ev) {
  GsContext ctx = x->ctx;
  void *px = NULL, *py = NULL;
  GsCall(GsLogEventBegin(ctx, ev));
  EV_TRY(ctx, ev, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ev, compute_ptr(y, beta == 0.0 ? GS_ACCESS_WRITE : GS_ACCESS_READWRITE, &py));
  if (x->n) EV_TRY(ctx, ev, ctx->ops->vec.axpby(ctx, x->dt, x->n, alpha, px, beta, py));
  GsCall(GsLogEventEnd(ctx, ev, (beta == 0.0 ? 2 : 3) * NB(x), (beta == 0.0 ? 1 : 3) * NF(x)));
  return 0;
}

int GsVecAXPY(GsVec y, double alpha, GsVec x) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  GsCall(axpby(y, alpha, 1.0, x, x->ctx->ev.vec_axpy));
  return 0;
}

int GsVecAXPBY(GsVec y, double alpha, double beta, GsVec x) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  GsCall(axpby(y, alpha, beta, x, x->ctx->ev.vec_axpby));
  return 0;
}

/* The nv vectors v[k] (named `name`) against the vector `ref` (named rname) of an operation on a
 * family of vectors: handles, access, context, size and type, each failure naming its k. */
static int check_family(GsVec ref, const char *rname, int nv, const GsVec v[], const char *name) {
  GsContext ctx = ref->ctx;
  for (int k = 0; k < nv; k++) {
    GsCheck(v[k] != NULL, ctx, GS_ERR_ARG_NULL, "vector %s[%d] is NULL", name, k);
    GsCheck(v[k]->access == GS_ACCESS_NONE, ctx, GS_ERR_WRONG_STATE,
            "vector %s[%d] has an array checked out; restore it first", name, k);
    GsCheck(v[k]->ctx == ctx, ctx, GS_ERR_ARG_INCOMP,
            "vector %s[%d] belongs to a different context than %s", name, k, rname);
    GsCheck(v[k]->n == ref->n, ctx, GS_ERR_ARG_SIZE,
            "vector %s[%d] has %lld entries but %s has %lld", name, k, (long long)v[k]->n, rname,
            (long long)ref->n);
    GsCheck(v[k]->dt == ref->dt, ctx, GS_ERR_ARG_TYPE, "vector %s[%d] is %s but %s is %s", name, k,
            GsDataTypeName(v[k]->dt), rname, GsDataTypeName(ref->dt));
  }
  return 0;
}

/* The compute-side pointers of a family's nv vectors, for reading, into p. */
static int family_ptrs(int nv, const GsVec v[], const void **p) {
  for (int k = 0; k < nv; k++) {
    void *q = NULL;
    GsCall(compute_ptr(v[k], GS_ACCESS_READ, &q));
    p[k] = q;
  }
  return 0;
}

int GsVecMAXPY(GsVec y, int nv, const double alpha[], const GsVec x[]) {
  CHECK_VEC(y);
  GsContext ctx = y->ctx;
  GsCheck(nv >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "number of vectors nv = %d is negative", nv);
  if (nv == 0) return 0;
  GsCheck(x != NULL, ctx, GS_ERR_ARG_NULL, "array of vectors x is NULL");
  GsCheck(alpha != NULL, ctx, GS_ERR_ARG_NULL, "array of coefficients alpha is NULL");
  GsCall(check_family(y, "y", nv, x, "x"));
  for (int k = 0; k < nv; k++)
    GsCheck(x[k] != y, ctx, GS_ERR_ARG_INCOMP, "vector x[%d] is y itself", k);
  if (!ctx->ops->vec.maxpy) { /* no fused kernel: the same bits, one pass per vector */
    for (int k = 0; k < nv; k++)
      GsCall(GsVecAXPY(y, alpha[k], x[k]));
    return 0;
  }
  const void *px_small[16];
  const void **px = nv <= 16 ? px_small : malloc((size_t)nv * sizeof *px);
  GsCheck(px != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %d pointers", nv);
  void *py = NULL;
  int ierr = GsLogEventBegin(ctx, ctx->ev.vec_maxpy);
  if (!ierr) ierr = compute_ptr(y, GS_ACCESS_READWRITE, &py);
  if (!ierr) ierr = family_ptrs(nv, x, px);
  if (!ierr && y->n) ierr = ctx->ops->vec.maxpy(ctx, y->dt, y->n, nv, alpha, px, py);
  if (!ierr) ierr = GsLogEventEnd(ctx, ctx->ev.vec_maxpy, (nv + 2) * NB(y), 2.0 * nv * NF(y));
  if (px != px_small) free(px);
  if (ierr) {
    GsLogEventCancel(ctx, ctx->ev.vec_maxpy);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

/* z = alpha x + beta y + gamma z through the back end's axpbypcz, logged as ev (WAXPY is the case
 * beta = 1, gamma = 0); the vectors are checked by the caller. */
static int axpbypcz(GsVec z, double alpha, double beta, double gamma, GsVec x, GsVec y,
                    GsLogEvent ev, double flops_per_entry) {
  GsContext ctx = x->ctx;
  void *pz = NULL, *px = NULL, *py = NULL;
  const int rz = gamma != 0.0 || z == x || z == y;
  GsCall(GsLogEventBegin(ctx, ev));
  EV_TRY(ctx, ev, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ev, compute_ptr(y, GS_ACCESS_READ, &py));
  EV_TRY(ctx, ev, compute_ptr(z, rz ? GS_ACCESS_READWRITE : GS_ACCESS_WRITE, &pz));
  if (x->n)
    EV_TRY(ctx, ev, ctx->ops->vec.axpbypcz(ctx, x->dt, x->n, alpha, px, beta, py, gamma, pz));
  GsCall(GsLogEventEnd(ctx, ev, (gamma != 0.0 ? 4 : 3) * NB(x), flops_per_entry * NF(x)));
  return 0;
}

int GsVecWAXPY(GsVec w, double alpha, GsVec x, GsVec y) {
  CHECK_VEC(w);
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  CHECK_COMPAT(x, w);
  GsCall(axpbypcz(w, alpha, 1.0, 0.0, x, y, x->ctx->ev.vec_waxpy, 2));
  return 0;
}

int GsVecAXPBYPCZ(GsVec z, double alpha, double beta, double gamma, GsVec x, GsVec y) {
  CHECK_VEC(z);
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  CHECK_COMPAT(x, z);
  GsCall(axpbypcz(z, alpha, beta, gamma, x, y, x->ctx->ev.vec_axpbypcz, gamma != 0.0 ? 5 : 3));
  return 0;
}

static int pointwise(GsVec w, GsVec x, GsVec y, GsPointwiseOp op) {
  GsContext ctx = x->ctx;
  void *pw = NULL, *px = NULL, *py = NULL;
  EV_BEGIN(ctx, vec_pointwise);
  EV_TRY(ctx, ctx->ev.vec_pointwise, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ctx->ev.vec_pointwise, compute_ptr(y, GS_ACCESS_READ, &py));
  EV_TRY(ctx, ctx->ev.vec_pointwise,
         compute_ptr(w, (w == x || w == y) ? GS_ACCESS_READWRITE : GS_ACCESS_WRITE, &pw));
  if (x->n)
    EV_TRY(ctx, ctx->ev.vec_pointwise, ctx->ops->vec.pointwise(ctx, x->dt, x->n, op, pw, px, py));
  EV_END(ctx, vec_pointwise, 3 * NB(x), NF(x));
  return 0;
}

int GsVecPointwiseMult(GsVec w, GsVec x, GsVec y) {
  CHECK_VEC(w);
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  CHECK_COMPAT(x, w);
  GsCall(pointwise(w, x, y, GS_PW_MULT));
  return 0;
}

int GsVecPointwiseDivide(GsVec w, GsVec x, GsVec y) {
  CHECK_VEC(w);
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  CHECK_COMPAT(x, w);
  GsCall(pointwise(w, x, y, GS_PW_DIVIDE));
  return 0;
}

int GsVecReciprocal(GsVec x) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  void *px = NULL;
  EV_BEGIN(ctx, vec_reciprocal);
  EV_TRY(ctx, ctx->ev.vec_reciprocal, compute_ptr(x, GS_ACCESS_READWRITE, &px));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_reciprocal, ctx->ops->vec.reciprocal(ctx, x->dt, x->n, px));
  EV_END(ctx, vec_reciprocal, 2 * NB(x), NF(x));
  return 0;
}

int GsVecDot(GsVec x, GsVec y, double *result) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  GsContext ctx = x->ctx;
  GsCheck(result != NULL, ctx, GS_ERR_ARG_NULL, "result pointer is NULL");
  void *px = NULL, *py = NULL;
  *result = 0;
  EV_BEGIN(ctx, vec_dot);
  EV_TRY(ctx, ctx->ev.vec_dot, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ctx->ev.vec_dot, compute_ptr(y, GS_ACCESS_READ, &py));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_dot, ctx->ops->vec.dot(ctx, x->dt, x->n, px, py, result));
  EV_END(ctx, vec_dot, 2 * NB(x), 2 * NF(x));
  return 0;
}

int GsVecMDot(GsVec x, int nv, const GsVec y[], double results[]) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  GsCheck(nv >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "number of vectors nv = %d is negative", nv);
  if (nv == 0) return 0;
  GsCheck(y != NULL, ctx, GS_ERR_ARG_NULL, "array of vectors y is NULL");
  GsCheck(results != NULL, ctx, GS_ERR_ARG_NULL, "results array is NULL");
  GsCall(check_family(x, "x", nv, y, "y"));
  /* The device pointers of y; on the stack for the usual handful of vectors (a Krylov basis). */
  const void *py_small[16];
  const void **py = nv <= 16 ? py_small : malloc((size_t)nv * sizeof *py);
  GsCheck(py != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %d pointers", nv);
  void *px = NULL;
  int ierr = GsLogEventBegin(ctx, ctx->ev.vec_mdot);
  if (!ierr) ierr = compute_ptr(x, GS_ACCESS_READ, &px);
  if (!ierr) ierr = family_ptrs(nv, y, py);
  for (int k = 0; k < nv; k++)
    results[k] = 0;
  if (!ierr && x->n) ierr = ctx->ops->vec.mdot(ctx, x->dt, x->n, px, nv, py, results);
  if (!ierr) ierr = GsLogEventEnd(ctx, ctx->ev.vec_mdot, (nv + 1) * NB(x), 2.0 * nv * NF(x));
  if (py != py_small) free(py);
  if (ierr) {
    GsLogEventCancel(ctx, ctx->ev.vec_mdot);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

/* The 2-norm kernels sum squares in double: one fast pass, but the sum overflows for double entries
 * beyond about 1e154 and loses digits below about 1e-154 (float entries cannot get there). When
 * the result lies in either range, it is computed again from the vector scaled by a power of two
 * near its largest entry, as BLAS's dnrm2 does in every call. */
static int needs_rescale(GsVec x, double nrm) {
  return x->dt == GS_DOUBLE && x->n > 0 && (isinf(nrm) || nrm < 1e-150);
}

static int norm2_rescaled(GsVec x, double *nrm) {
  double m = 0;
  GsCall(GsVecNorm(x, GS_NORM_INF, &m));
  if (m == 0 || !isfinite(m)) { /* a zero vector, or an inf or NaN entry: the sum was right */
    *nrm = m == 0 ? 0 : *nrm;
    return 0;
  }
  /* A power of two, so the scaling itself rounds nothing; clamped for subnormal maxima. */
  int e = ilogb(m);
  double scale = ldexp(1.0, e < -1000 ? 1000 : -e);
  GsVec t = NULL;
  GsCall(GsVecDuplicate(x, &t));
  int ierr = GsVecCopy(x, t);
  if (!ierr) ierr = GsVecScale(t, scale);
  double s = 0;
  if (!ierr) ierr = GsVecNorm(t, GS_NORM_2, &s);
  GsVecDestroy(&t);
  GsCall(ierr);
  *nrm = s / scale;
  return 0;
}

int GsVecNorm(GsVec x, GsNormType type, double *result) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  GsCheck(result != NULL, ctx, GS_ERR_ARG_NULL, "result pointer is NULL");
  GsCheck(type == GS_NORM_1 || type == GS_NORM_2 || type == GS_NORM_INF, ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown norm type %d", (int)type);
  void *px = NULL;
  *result = 0;
  EV_BEGIN(ctx, vec_norm);
  EV_TRY(ctx, ctx->ev.vec_norm, compute_ptr(x, GS_ACCESS_READ, &px));
  if (x->n) EV_TRY(ctx, ctx->ev.vec_norm, ctx->ops->vec.norm(ctx, x->dt, x->n, px, type, result));
  EV_END(ctx, vec_norm, NB(x), 2 * NF(x));
  if (type == GS_NORM_2 && needs_rescale(x, *result)) GsCall(norm2_rescaled(x, result));
  return 0;
}

int GsVecAXPYNorm(GsVec y, double alpha, GsVec x, double *norm) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  GsContext ctx = x->ctx;
  GsCheck(norm != NULL, ctx, GS_ERR_ARG_NULL, "norm pointer is NULL");
  GsCheck(x != y, ctx, GS_ERR_ARG_INCOMP, "x and y must be different vectors");
  void *px = NULL, *py = NULL;
  *norm = 0;
  EV_BEGIN(ctx, vec_axpy_norm);
  EV_TRY(ctx, ctx->ev.vec_axpy_norm, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ctx->ev.vec_axpy_norm, compute_ptr(y, GS_ACCESS_READWRITE, &py));
  if (x->n)
    EV_TRY(ctx, ctx->ev.vec_axpy_norm,
           ctx->ops->vec.axpy_norm(ctx, x->dt, x->n, alpha, px, py, norm));
  EV_END(ctx, vec_axpy_norm, 3 * NB(x), 4 * NF(x));
  if (needs_rescale(y, *norm)) GsCall(norm2_rescaled(y, norm));
  return 0;
}

int GsVecDotNorm2(GsVec x, GsVec y, double *dot, double *nrm2) {
  CHECK_VEC(x);
  CHECK_VEC(y);
  CHECK_COMPAT(x, y);
  GsContext ctx = x->ctx;
  GsCheck(dot != NULL && nrm2 != NULL, ctx, GS_ERR_ARG_NULL, "dot or nrm2 pointer is NULL");
  void *px = NULL, *py = NULL;
  *dot = *nrm2 = 0;
  EV_BEGIN(ctx, vec_dot_norm2);
  EV_TRY(ctx, ctx->ev.vec_dot_norm2, compute_ptr(x, GS_ACCESS_READ, &px));
  EV_TRY(ctx, ctx->ev.vec_dot_norm2, compute_ptr(y, GS_ACCESS_READ, &py));
  if (x->n)
    EV_TRY(ctx, ctx->ev.vec_dot_norm2,
           ctx->ops->vec.dot_norm2(ctx, x->dt, x->n, px, py, dot, nrm2));
  EV_END(ctx, vec_dot_norm2, 2 * NB(x), 4 * NF(x));
  return 0;
}

/* The results of an operation on empty vectors into ds->res[0 .. nres - 1]: zeros, unless a
 * coefficient's denominator says the step is not to be taken. */
static int empty_results(GsContext ctx, const GsDevScalars *ds, int nres) {
  double v[2] = {0, 0};
  if (ds->aden) {
    GsCall(GsMemCopy(ctx, v, GS_MEM_HOST, ds->aden, ctx->ops->mem, sizeof(double)));
    if (!(v[0] > 0)) return 0;
    v[0] = 0;
  }
  GsCall(GsMemCopy(ctx, ds->res, ctx->ops->mem, v, GS_MEM_HOST, (size_t)nres * sizeof(double)));
  return 0;
}

/* GsVecAXPYPair, with alpha and the results in back-end memory when ds is given. */
static int axpy_pair(GsVec x, GsVec r, double alpha, GsVec p, GsVec q, GsVec w, double *rwr,
                     double *rr, const GsDevScalars *ds) {
  CHECK_VEC(r);
  GsContext ctx = r->ctx;
  GsCheck(x || !p, ctx, GS_ERR_ARG_NULL, "vector x is NULL but p is not (both or neither)");
  GsCheck(p || !x, ctx, GS_ERR_ARG_NULL, "vector p is NULL but x is not (both or neither)");
  CHECK_VEC(q);
  if (x) CHECK_VEC(x);
  if (p) CHECK_VEC(p);
  if (w) CHECK_VEC(w);
  if (x) CHECK_COMPAT(x, r);
  if (p) CHECK_COMPAT(r, p);
  CHECK_COMPAT(r, q);
  if (w) CHECK_COMPAT(r, w);
  GsCheck(x != r, ctx, GS_ERR_ARG_INCOMP, "x and r must be different vectors");
  void *px = NULL, *pr = NULL, *pp = NULL, *pq = NULL, *pw = NULL;
  double vrwr = 0, vrr = 0;
  if (rwr) *rwr = 0;
  if (rr) *rr = 0;
  EV_BEGIN(ctx, vec_axpy_pair);
  if (p) EV_TRY(ctx, ctx->ev.vec_axpy_pair, compute_ptr(p, GS_ACCESS_READ, &pp));
  EV_TRY(ctx, ctx->ev.vec_axpy_pair, compute_ptr(q, GS_ACCESS_READ, &pq));
  if (w) EV_TRY(ctx, ctx->ev.vec_axpy_pair, compute_ptr(w, GS_ACCESS_READ, &pw));
  if (x) EV_TRY(ctx, ctx->ev.vec_axpy_pair, compute_ptr(x, GS_ACCESS_READWRITE, &px));
  EV_TRY(ctx, ctx->ev.vec_axpy_pair, compute_ptr(r, GS_ACCESS_READWRITE, &pr));
  if (r->n)
    EV_TRY(ctx, ctx->ev.vec_axpy_pair,
           ctx->ops->vec.axpy_pair(ctx, r->dt, r->n, px, pr, alpha, pp, pq, pw, &vrwr, &vrr, ds));
  else if (ds) /* no entries: the sums are 0, unless the step is one not to take */
    EV_TRY(ctx, ctx->ev.vec_axpy_pair, empty_results(ctx, ds, 1 + (w != NULL)));
  /* 3 values per entry (r, q read; r written) and 4 flops (the update of r, r . r); x adds 3
   * values (x, p read; x written) and 2 flops; w adds a read and 3 flops (w r and its product
   * with r). */
  EV_END(ctx, vec_axpy_pair, (3 + 3 * (x != NULL) + (w != NULL)) * NB(r),
         (4 + 2 * (x != NULL) + 3 * (w != NULL)) * NF(r));
  if (rwr) *rwr = vrwr;
  if (rr) *rr = vrr;
  return 0;
}

int GsVecAXPYPair(GsVec x, GsVec r, double alpha, GsVec p, GsVec q, GsVec w, double *rwr,
                  double *rr) {
  GsCall(axpy_pair(x, r, alpha, p, q, w, rwr, rr, NULL));
  return 0;
}

int GsVecAXPYPairScalars(GsVec x, GsVec r, GsScalarRatio a, GsVec p, GsVec q, GsVec w, GsScalars s,
                         int res) {
  CHECK_VEC(r);
  GsContext ctx = r->ctx;
  GsCall(GsScalarsCheckFor(ctx, a.s, "of alpha", a.num, 1));
  GsCall(GsScalarsCheckFor(ctx, a.s, "of alpha", a.den, 1));
  GsCall(GsScalarsCheckFor(ctx, s, "for the results", res, 1 + (w != NULL)));
  GsDevScalars ds = {a.s->d + a.num, a.s->d + a.den, NULL, NULL, s->d + res};
  GsCall(axpy_pair(x, r, 0.0, p, q, w, NULL, NULL, &ds));
  return 0;
}

int GsVecPointwiseMultAYPX(GsVec y, double beta, GsVec w, GsVec x) {
  CHECK_VEC(y);
  CHECK_VEC(x);
  if (w) CHECK_VEC(w);
  CHECK_COMPAT(x, y);
  if (w) CHECK_COMPAT(x, w);
  GsContext ctx = x->ctx;
  const int read_y = beta != 0.0 || y == x || y == w;
  void *py = NULL, *px = NULL, *pw = NULL;
  EV_BEGIN(ctx, vec_pw_mult_aypx);
  EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx, compute_ptr(x, GS_ACCESS_READ, &px));
  if (w) EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx, compute_ptr(w, GS_ACCESS_READ, &pw));
  EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx,
         compute_ptr(y, read_y ? GS_ACCESS_READWRITE : GS_ACCESS_WRITE, &py));
  /* beta == 0: y = w .* x (or x) must not read y, which may hold NaN or garbage (as in AXPBY). */
  if (x->n && beta != 0.0)
    EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx,
           ctx->ops->vec.pw_mult_aypx(ctx, x->dt, x->n, py, beta, pw, px, NULL, 0.0, NULL));
  else if (x->n && w)
    EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx,
           ctx->ops->vec.pointwise(ctx, x->dt, x->n, GS_PW_MULT, py, pw, px));
  else if (x->n && y != x)
    EV_TRY(ctx, ctx->ev.vec_pw_mult_aypx, ctx->ops->vec.copy(ctx, x->n, x->dt, px, x->dt, py));
  EV_END(ctx, vec_pw_mult_aypx, ((beta != 0.0) + (w != NULL) + 2) * NB(x),
         (2 * (beta != 0.0) + (w != NULL)) * NF(x));
  return 0;
}

static int axpy_pw_mult_aypx(GsVec z, double alpha, GsVec y, double beta, GsVec w, GsVec x,
                             const GsDevScalars *ds) {
  CHECK_VEC(z);
  CHECK_VEC(y);
  CHECK_VEC(x);
  if (w) CHECK_VEC(w);
  CHECK_COMPAT(z, y);
  CHECK_COMPAT(z, x);
  if (w) CHECK_COMPAT(z, w);
  GsContext ctx = z->ctx;
  GsCheck(z != y && z != x && z != w, ctx, GS_ERR_ARG_INCOMP,
          "z must be a different vector from y, w and x");
  void *pz = NULL, *py = NULL, *px = NULL, *pw = NULL;
  EV_BEGIN(ctx, vec_axpy_pw_mult_aypx);
  EV_TRY(ctx, ctx->ev.vec_axpy_pw_mult_aypx, compute_ptr(x, GS_ACCESS_READ, &px));
  if (w) EV_TRY(ctx, ctx->ev.vec_axpy_pw_mult_aypx, compute_ptr(w, GS_ACCESS_READ, &pw));
  EV_TRY(ctx, ctx->ev.vec_axpy_pw_mult_aypx, compute_ptr(y, GS_ACCESS_READWRITE, &py));
  EV_TRY(ctx, ctx->ev.vec_axpy_pw_mult_aypx, compute_ptr(z, GS_ACCESS_READWRITE, &pz));
  if (z->n)
    EV_TRY(ctx, ctx->ev.vec_axpy_pw_mult_aypx,
           ctx->ops->vec.pw_mult_aypx(ctx, z->dt, z->n, py, beta, pw, px, pz, alpha, ds));
  /* 5 values per entry (z, y, x read; z, y written) and 2 flops (z += alpha y), whatever beta (y is
   * read for z); w adds a read and a flop; beta != 0 adds 2 flops. */
  EV_END(ctx, vec_axpy_pw_mult_aypx, (5 + (w != NULL)) * NB(z),
         (2 + (w != NULL) + 2 * (ds || beta != 0.0)) * NF(z));
  return 0;
}

int GsVecAXPYPointwiseMultAYPX(GsVec z, double alpha, GsVec y, double beta, GsVec w, GsVec x) {
  GsCall(axpy_pw_mult_aypx(z, alpha, y, beta, w, x, NULL));
  return 0;
}

int GsVecAXPYPointwiseMultAYPXScalars(GsVec z, GsScalarRatio alpha, GsVec y, GsScalarRatio beta,
                                      GsVec w, GsVec x) {
  CHECK_VEC(z);
  GsContext ctx = z->ctx;
  GsCall(GsScalarsCheckFor(ctx, alpha.s, "of alpha", alpha.num, 1));
  GsCall(GsScalarsCheckFor(ctx, alpha.s, "of alpha", alpha.den, 1));
  GsCall(GsScalarsCheckFor(ctx, beta.s, "of beta", beta.num, 1));
  GsCall(GsScalarsCheckFor(ctx, beta.s, "of beta", beta.den, 1));
  GsDevScalars ds = {alpha.s->d + alpha.num, alpha.s->d + alpha.den, beta.s->d + beta.num,
                     beta.s->d + beta.den, NULL};
  GsCall(axpy_pw_mult_aypx(z, 0.0, y, 0.0, w, x, &ds));
  return 0;
}

int GsVecSetRandom(GsVec x, uint64_t seed, double lo, double hi) {
  CHECK_VEC(x);
  GsContext ctx = x->ctx;
  GsCheck(lo <= hi, ctx, GS_ERR_ARG_OUTOFRANGE, "random range [%g, %g) is empty", lo, hi);
  void *px = NULL;
  EV_BEGIN(ctx, vec_random);
  EV_TRY(ctx, ctx->ev.vec_random, compute_ptr(x, GS_ACCESS_WRITE, &px));
  if (x->n)
    EV_TRY(ctx, ctx->ev.vec_random, ctx->ops->vec.set_random(ctx, x->dt, x->n, px, seed, lo, hi));
  EV_END(ctx, vec_random, NB(x), 0);
  return 0;
}

int GsVecCheckFor(GsContext ctx, GsVec v, const char *name, const char *owner, GsDataType dt,
                  GsInt *n) {
  GsCheck(v != NULL, ctx, GS_ERR_ARG_NULL, "%s is NULL", name);
  GsContext vctx;
  GsDataType vdt;
  GsCall(GsVecGetContext(v, &vctx));
  GsCall(GsVecGetSize(v, n));
  GsCall(GsVecGetDataType(v, &vdt));
  GsCheck(vctx == ctx, ctx, GS_ERR_ARG_INCOMP, "%s belongs to another context than %s", name,
          owner);
  GsCheck(vdt == dt, ctx, GS_ERR_ARG_TYPE, "%s is %s but %s is %s", name, GsDataTypeName(vdt),
          owner, GsDataTypeName(dt));
  return 0;
}
