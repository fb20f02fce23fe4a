/* Contexts in different host threads are independent: four threads, each with its own context on
 * the back end given (argv[1]), run the same mix of work (vector operations, a batched banded
 * solve, a Matrix Market round trip, a Krylov solve, options) and must get exactly the results
 * one thread alone gets; each thread's errors (raised on purpose, with and without a context)
 * carry its own message. */
#include "harness.h"

#include <pthread.h>

static const char *resource = "/cpu";

enum { NTHREADS = 4, ROUNDS = 6 };

typedef struct {
  int id;
  double dot, bnorm, xnorm;
  GsInt its;
  int errors_ok; /* the thread's own error messages came back intact */
  int rc;        /* first unexpected return code */
  char msg[512];
} Work;

#define W_CALL(w, call)                                                                            \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    if (rc_ && !(w)->rc) {                                                                         \
      (w)->rc = rc_;                                                                               \
      snprintf((w)->msg, sizeof(w)->msg, "%s: %s", #call, GsGetErrorMessage(ctx));                 \
    }                                                                                              \
  } while (0)

static void *work(void *arg) {
  Work *w = arg;
  GsContext ctx = NULL;
  if (GsInit(resource, &ctx)) {
    w->rc = -1;
    snprintf(w->msg, sizeof w->msg, "GsInit: %s", GsGetErrorMessage(NULL));
    return NULL;
  }
  w->errors_ok = 1;
  for (int round = 0; round < ROUNDS; round++) {
    /* Vectors. */
    const GsInt n = 1000003;
    GsVec x = NULL, y = NULL;
    W_CALL(w, GsVecCreate(ctx, n, GS_DOUBLE, &x));
    W_CALL(w, GsVecCreate(ctx, n, GS_DOUBLE, &y));
    W_CALL(w, GsVecSetRandom(x, 11, -1, 1));
    W_CALL(w, GsVecSetRandom(y, 12, -1, 1));
    W_CALL(w, GsVecAXPBYPCZ(y, 0.5, -0.25, 1.5, x, x));
    W_CALL(w, GsVecDot(x, y, &w->dot));
    /* A batched banded solve: f = A 1, so x = 1. */
    GsBandedDesc d = {5, 257, 64, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 1, 0};
    GsBanded A = NULL;
    GsVec diag[5] = {NULL}, f = NULL, s = NULL, one = NULL;
    GsInt dlen = 0, rlen = 0;
    W_CALL(w, GsBandedCreate(ctx, &d, &A));
    if (A) W_CALL(w, GsBandedGetSizes(A, &dlen, &rlen));
    for (int k = 0; k < 5 && dlen; k++) {
      W_CALL(w, GsVecCreate(ctx, dlen, GS_DOUBLE, &diag[k]));
      W_CALL(w, GsVecSetRandom(diag[k], (uint64_t)(20 + k), k == 2 ? 6 : -1, k == 2 ? 7 : 1));
    }
    if (rlen) {
      W_CALL(w, GsVecCreate(ctx, rlen, GS_DOUBLE, &f));
      W_CALL(w, GsVecCreate(ctx, rlen, GS_DOUBLE, &s));
      W_CALL(w, GsVecCreate(ctx, rlen, GS_DOUBLE, &one));
      W_CALL(w, GsVecSet(one, 1.0));
      W_CALL(w, GsBandedMult(A, diag, one, f));
      W_CALL(w, GsBandedFactor(A, diag));
      W_CALL(w, GsBandedSolve(A, f, s));
      W_CALL(w, GsVecAXPY(s, -1.0, one));
      W_CALL(w, GsVecNorm(s, GS_NORM_INF, &w->bnorm));
    }
    /* A Krylov solve on a Laplacian, written to and read back from this thread's own file. */
    GsMat L = NULL, L2 = NULL;
    GsVec b = NULL, xs = NULL;
    GsKsp k = NULL;
    char path[256];
    snprintf(path, sizeof path, "/tmp/gs-threads-%d-%d.mtx", (int)getpid(), w->id);
    W_CALL(w, GsMatCreateLaplacian(ctx, 12, 11, 10, 7, &L));
    if (L) W_CALL(w, GsMatSaveMatrixMarket(L, path));
    if (L) W_CALL(w, GsMatLoadMatrixMarket(ctx, path, &L2));
    remove(path);
    if (L2) {
      W_CALL(w, GsVecCreate(ctx, 1320, GS_DOUBLE, &b));
      W_CALL(w, GsVecCreate(ctx, 1320, GS_DOUBLE, &xs));
      W_CALL(w, GsVecSetRandom(b, 33, -1, 1));
      W_CALL(w, GsKspCreate(ctx, &k));
      W_CALL(w, GsOptionsInsertString(ctx, "-ksp_type cg -pc_type jacobi -ksp_rtol 1e-10"));
      if (k) W_CALL(w, GsKspSetOperator(k, L2));
      if (k) W_CALL(w, GsKspSetFromOptions(k));
      if (k) W_CALL(w, GsKspSolve(k, b, xs));
      if (k) W_CALL(w, GsKspGetIterationNumber(k, &w->its));
      W_CALL(w, GsVecNorm(xs, GS_NORM_2, &w->xnorm));
    }
    /* Errors: this thread's, with its id in the message, on the context and without one. */
    char want[64];
    snprintf(want, sizeof want, "thread-%d-file.mtx", w->id);
    GsMat none = NULL;
    if (GsMatLoadMatrixMarket(ctx, want, &none) != GS_ERR_FILE_OPEN ||
        !strstr(GsGetErrorMessage(ctx), want))
      w->errors_ok = 0;
    GsVec orphan = NULL;
    if (GsVecCreate(NULL, 4, GS_DOUBLE, &orphan) != GS_ERR_ARG_NULL ||
        !strstr(GsGetErrorMessage(NULL), "GS_ERR_ARG_NULL"))
      w->errors_ok = 0;
    GsKspDestroy(&k);
    GsVecDestroy(&b);
    GsVecDestroy(&xs);
    GsMatDestroy(&L);
    GsMatDestroy(&L2);
    for (int q = 0; q < 5; q++)
      GsVecDestroy(&diag[q]);
    GsVecDestroy(&f);
    GsVecDestroy(&s);
    GsVecDestroy(&one);
    GsBandedDestroy(&A);
    GsVecDestroy(&x);
    GsVecDestroy(&y);
  }
  GsDestroy(&ctx);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_threads", resource, argc, argv);
  GsContext probe = NULL;
  const int rc = hs_init_backend(resource, &probe);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  GsDestroy(&probe);
  /* One thread alone: the reference. */
  Work ref = {.id = 99};
  work(&ref);
  CHECK(ref.rc == 0, "alone: %d: %s", ref.rc, ref.msg);
  CHECK(ref.errors_ok, "alone: the error messages were not the thread's own");
  CHECK(ref.bnorm < 1e-12 && ref.its > 0, "alone: banded error %g, %lld CG iterations", ref.bnorm,
        (long long)ref.its);
  /* Four at once. */
  pthread_t th[NTHREADS];
  Work w[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].id = i;
    CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0, "pthread_create %d", i);
  }
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < NTHREADS; i++) {
    CHECK(w[i].rc == 0, "thread %d: %d: %s", i, w[i].rc, w[i].msg);
    CHECK(w[i].errors_ok, "thread %d: an error message was not its own", i);
    CHECK(w[i].dot == ref.dot && w[i].bnorm == ref.bnorm && w[i].its == ref.its &&
              w[i].xnorm == ref.xnorm,
          "thread %d: dot %.17g banded %.3g its %lld |x| %.17g; alone %.17g %.3g %lld %.17g", i,
          w[i].dot, w[i].bnorm, (long long)w[i].its, w[i].xnorm, ref.dot, ref.bnorm,
          (long long)ref.its, ref.xnorm);
  }
  printf("threads: %d contexts in %d threads, %d rounds each, the same results as one alone\n",
         NTHREADS, NTHREADS, ROUNDS);
  return hs_finish();
}
