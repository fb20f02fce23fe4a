/* Contexts and back ends: resource strings, the default and $GS_BACKEND, "help", unknown and
 * uncompiled back ends, destroy rules, device information, bandwidth probe, version, device counts,
 * NULL output pointers. */
#include "harness.h"

static int cuda_compiled(void) {
  return strstr(GsGetBuildInfo(), "CUDA ON") != NULL;
}

static void test_cpu(void) {
  GsContext ctx = NULL;
  if (CHECK_OK(GsInit("/cpu", &ctx))) return;
  CHECK(ctx != NULL, "GsInit(/cpu) gave a NULL context");
  hs_watch(ctx);
  const char *res = NULL;
  CHECK_OK(GsGetResource(ctx, &res));
  CHECK(res && !strcmp(res, "/cpu"), "resource is '%s', expected /cpu", res ? res : "(null)");
  GsMemType mem = GS_MEM_DEVICE;
  CHECK_OK(GsGetPreferredMemType(ctx, &mem));
  CHECK(mem == GS_MEM_HOST, "/cpu prefers memory %d, expected GS_MEM_HOST", (int)mem);
  CHECK_OK(GsSynchronize(ctx));
  CHECK_OK(GsSetDeterministic(ctx, 1));
  CHECK_OK(GsSetDeterministic(ctx, 0));

  GsDeviceInfo info;
  memset(&info, 0x5a, sizeof info);
  CHECK_OK(GsGetDeviceInfo(ctx, &info));
  CHECK(memchr(info.name, 0, sizeof info.name) && info.name[0],
        "device name is empty or unterminated");
  CHECK(info.device_id == -1, "CPU device_id is %d, expected -1", info.device_id);
  CHECK(info.compute_major == 0 && info.compute_minor == 0, "CPU compute capability %d.%d",
        info.compute_major, info.compute_minor);
  CHECK(info.multiprocessors >= 1, "CPU reports %d threads", info.multiprocessors);

  /* Copy bandwidth: positive and finite (a CPU does not copy at a petabyte per second). */
  const size_t sizes[] = {1000, 4096, (size_t)1 << 20};
  for (int k = 0; k < 3; k++) {
    double gbs = -1;
    CHECK_OK(GsMeasureCopyBandwidth(ctx, sizes[k], 3, &gbs));
    CHECK(isfinite(gbs) && gbs > 0 && gbs < 1e6, "bandwidth for %zu bytes is %g GB/s", sizes[k],
          gbs);
  }
  /* Fewer bytes than one element: refused, or measured (a successful measurement is positive). */
  double gbs = 0;
  int rc = GsMeasureCopyBandwidth(ctx, 4, 3, &gbs);
  CHECK(rc != 0 || (isfinite(gbs) && gbs > 0), "bandwidth for 4 bytes: rc %d, %g GB/s", rc, gbs);
  CHECK_ERR(GsMeasureCopyBandwidth(ctx, 0, 3, &gbs), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMeasureCopyBandwidth(ctx, 4096, 0, &gbs), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMeasureCopyBandwidth(ctx, 4096, -2, &gbs), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMeasureCopyBandwidth(ctx, 4096, 3, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsMeasureCopyBandwidth(NULL, 4096, 3, &gbs), GS_ERR_ARG_NULL);

  /* NULL output pointers. */
  CHECK_ERR(GsGetResource(ctx, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetResource(NULL, &res), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetPreferredMemType(ctx, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetPreferredMemType(NULL, &mem), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetDeviceInfo(ctx, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetDeviceInfo(NULL, &info), GS_ERR_ARG_NULL);
  CHECK_ERR(GsSynchronize(NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsSetDeterministic(NULL, 1), GS_ERR_ARG_NULL);
  GsLogEvent ev;
  CHECK_ERR(GsLogEventRegister(ctx, "E", NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsLogEventRegister(ctx, NULL, &ev), GS_ERR_ARG_NULL);
  CHECK_ERR(GsLogEventRegister(NULL, "E", &ev), GS_ERR_ARG_NULL);
  GsVec v = NULL;
  CHECK_ERR(GsVecCreate(ctx, 4, GS_DOUBLE, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecCreate(NULL, 4, GS_DOUBLE, &v), GS_ERR_ARG_NULL);
  CHECK(v == NULL, "GsVecCreate with a NULL context set the vector");
  int set = 0;
  CHECK_ERR(GsOptionsHasName(ctx, "-x", NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsHasName(NULL, "-x", &set), GS_ERR_ARG_NULL);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  CHECK(ctx == NULL, "GsDestroy did not clear the handle");
}

static void test_default_and_help(void) {
  int ngpu = -1;
  CHECK_OK(GsGetDeviceCount("/gpu/cuda", &ngpu));
  CHECK(ngpu >= 0, "GPU count %d", ngpu);
  if (!cuda_compiled()) CHECK(ngpu == 0, "CUDA not compiled in, yet %d GPUs counted", ngpu);

  /* NULL: the first GPU when there is one, else the CPU. */
  GsContext ctx = NULL;
  if (!CHECK_OK(GsInit(NULL, &ctx))) {
    const char *res = "";
    CHECK_OK(GsGetResource(ctx, &res));
    if (ngpu == 0)
      CHECK(!strcmp(res, "/cpu"), "default resource with no GPU is '%s', expected /cpu", res);
    else
      CHECK(!strcmp(res, "/gpu/cuda:0"), "default resource with %d GPUs is '%s'", ngpu, res);
    CHECK_OK(GsDestroy(&ctx));
  }

  /* "help" lists the back ends on stdout, creates nothing and succeeds. */
  ctx = (GsContext)&ngpu; /* garbage the call must overwrite */
  hs_capture_begin();
  int rc = GsInit("help", &ctx);
  char *out = hs_capture_end();
  CHECK(rc == 0, "GsInit(help) returned %d", rc);
  CHECK(ctx == NULL, "GsInit(help) did not set *ctx = NULL");
  CHECK(out && strstr(out, "/cpu") && strstr(out, "/gpu/cuda"), "GsInit(help) printed:\n%s",
        out ? out : "(nothing captured)");
  if (out && !cuda_compiled())
    CHECK(strstr(out, "not compiled"), "help does not say CUDA is not compiled in:\n%s", out);
  free(out);
  ctx = NULL;

  FILE *f = tmpfile();
  if (f) {
    CHECK_OK(GsBackendsView(f));
    char *s = hs_read_all(f);
    CHECK(s && strstr(s, "/cpu") && strstr(s, "/gpu/cuda"), "GsBackendsView wrote:\n%s",
          s ? s : "");
    free(s);
    fclose(f);
  }
}

static void test_bad_resources(void) {
  const char *unknown[] = {"/foo",         "/gpu/opencl", "/cpu:3", "/gpu/cuda:abc",
                           "/gpu/cuda:-1", "cpu",         "/cpux",  "/gpu/cuda:"};
  for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++) {
    GsContext ctx = (GsContext)&k;
    GsClearError(NULL);
    int rc = GsInit(unknown[k], &ctx);
    CHECK(rc == GS_ERR_BACKEND_UNKNOWN,
          "GsInit(%s) returned %d (%s), expected "
          "GS_ERR_BACKEND_UNKNOWN:\n%s",
          unknown[k], rc, GsErrorName(rc), GsGetErrorMessage(NULL));
    CHECK(ctx == NULL, "failed GsInit(%s) left *ctx non-NULL", unknown[k]);
    CHECK(GsGetErrorCode(NULL) == GS_ERR_BACKEND_UNKNOWN, "GsInit(%s): thread error code %d",
          unknown[k], GsGetErrorCode(NULL));
    const char *m = GsGetErrorMessage(NULL);
    CHECK(strstr(m, unknown[k]) != NULL, "message for %s does not name it:\n%s", unknown[k], m);
    /* The message names what is available (the CPU is always compiled in). */
    CHECK(strstr(m, "/cpu") != NULL, "message for %s names no alternative:\n%s", unknown[k], m);
    if (ctx && ctx != (GsContext)&k) GsDestroy(&ctx); /* a context despite the error */
  }

  if (!cuda_compiled()) {
    const char *gpu[] = {"/gpu/cuda", "/gpu/cuda:0", "/gpu/cuda:1", "/gpu"};
    for (int k = 0; k < 4; k++) {
      GsContext ctx = NULL;
      GsClearError(NULL);
      CHECK_ERR(GsInit(gpu[k], &ctx), GS_ERR_BACKEND_NOT_COMPILED);
      CHECK(ctx == NULL, "GsInit(%s) left a context", gpu[k]);
      CHECK_MSG(NULL, "/gpu/cuda");
      CHECK_MSG(NULL, "/cpu");
      if (ctx) GsDestroy(&ctx);
    }
  } else {
    int ngpu = 0;
    CHECK_OK(GsGetDeviceCount("/gpu/cuda", &ngpu));
    char res[64];
    snprintf(res, sizeof res, "/gpu/cuda:%d", ngpu);
    GsContext ctx = NULL;
    CHECK_ERR(GsInit(res, &ctx), GS_ERR_NO_DEVICE);
    CHECK(ctx == NULL, "GsInit(%s) left a context", res);
    if (ctx) GsDestroy(&ctx);
  }

  GsContext ctx = NULL;
  CHECK_ERR(GsInit("/cpu", NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsInitWithArgs(0, NULL, "/cpu", NULL), GS_ERR_ARG_NULL);
  CHECK(ctx == NULL, "ctx touched");
}

static void test_env_backend(void) {
  GsContext ctx = NULL;
  setenv("GS_BACKEND", "/cpu", 1);
  if (!CHECK_OK(GsInit(NULL, &ctx))) {
    const char *res = "";
    CHECK_OK(GsGetResource(ctx, &res));
    CHECK(!strcmp(res, "/cpu"), "GS_BACKEND=/cpu gave resource '%s'", res);
    CHECK_OK(GsDestroy(&ctx));
  }
  setenv("GS_BACKEND", "/bogus", 1);
  GsClearError(NULL);
  CHECK_ERR(GsInit(NULL, &ctx), GS_ERR_BACKEND_UNKNOWN);
  CHECK(ctx == NULL, "GsInit with GS_BACKEND=/bogus left a context");
  CHECK_MSG(NULL, "/bogus");
  if (ctx) GsDestroy(&ctx);
  /* An explicit resource wins over the environment. */
  if (!CHECK_OK(GsInit("/cpu", &ctx))) CHECK_OK(GsDestroy(&ctx));
  unsetenv("GS_BACKEND");

  /* A bad option in $GS_OPTIONS makes GsInit fail cleanly, naming the option and the value. */
  setenv("GS_OPTIONS", "-log_view maybe", 1);
  GsClearError(NULL);
  CHECK_ERR(GsInit("/cpu", &ctx), GS_ERR_OPTION);
  CHECK(ctx == NULL, "GsInit with a bad option left a context");
  CHECK_MSG(NULL, "-log_view");
  CHECK_MSG(NULL, "maybe");
  CHECK(hs_count(GsGetErrorMessage(NULL), "GS_ERR_OPTION") == 1,
        "the message repeats its code name:\n%s", GsGetErrorMessage(NULL));
  if (ctx) GsDestroy(&ctx);
  unsetenv("GS_OPTIONS");
}

static void test_destroy(void) {
  CHECK_OK(GsDestroy(NULL));
  GsContext ctx = NULL;
  CHECK_OK(GsDestroy(&ctx));
  if (CHECK_OK(GsInit("/cpu", &ctx))) return;
  hs_watch(ctx);
  GsVec v = NULL;
  CHECK_OK(GsVecCreate(ctx, 10, GS_DOUBLE, &v));
  int rc = GsDestroy(&ctx);
  CHECK(rc == GS_ERR_WRONG_STATE, "GsDestroy with a live vector returned %d (%s)", rc,
        GsErrorName(rc));
  CHECK(ctx != NULL, "a refused GsDestroy cleared the handle");
  if (!ctx) return; /* the context is gone: nothing more is safe */
  CHECK_MSG(ctx, "GS_ERR_WRONG_STATE");
  CHECK_MSG(ctx, "1 live object");
  /* The context still works after the refusal. */
  CHECK_OK(GsVecSet(v, 1.0));
  CHECK_OK(GsVecDestroy(&v));
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  CHECK(ctx == NULL, "GsDestroy did not clear the handle");
  CHECK_OK(GsDestroy(&ctx)); /* twice */
}

static void test_version_counts(void) {
  int ma = -1, mi = -1, pa = -1;
  CHECK_OK(GsGetVersion(&ma, &mi, &pa));
  CHECK(ma == GS_VERSION_MAJOR && mi == GS_VERSION_MINOR && pa == GS_VERSION_PATCH,
        "library version %d.%d.%d, header %d.%d.%d", ma, mi, pa, GS_VERSION_MAJOR, GS_VERSION_MINOR,
        GS_VERSION_PATCH);
  CHECK(GS_VERSION_NUMBER(ma, mi, pa) == GS_VERSION, "GS_VERSION inconsistent");
  CHECK(GS_VERSION_GE(GS_VERSION_MAJOR, GS_VERSION_MINOR, GS_VERSION_PATCH) &&
            !GS_VERSION_GE(GS_VERSION_MAJOR + 1, 0, 0),
        "GS_VERSION_GE is wrong");
  CHECK_OK(GsGetVersion(NULL, NULL, NULL));
  const char *bi = GsGetBuildInfo();
  char ver[64];
  snprintf(ver, sizeof ver, "%d.%d.%d", ma, mi, pa);
  CHECK(bi && strstr(bi, "gpusolve") && strstr(bi, ver) && strstr(bi, "CUDA"),
        "build info '%s' lacks the name, version %s or CUDA state", bi ? bi : "(null)", ver);

  int count = -1;
  CHECK_OK(GsGetDeviceCount("/cpu", &count));
  CHECK(count == 1, "GsGetDeviceCount(/cpu) = %d", count);
  GsClearError(NULL);
  CHECK_ERR(GsGetDeviceCount("/foo", &count), GS_ERR_BACKEND_UNKNOWN);
  CHECK_MSG(NULL, "/foo");
  CHECK_MSG(NULL, "/cpu");
  CHECK_ERR(GsGetDeviceCount(NULL, &count), GS_ERR_ARG_NULL);
  CHECK_ERR(GsGetDeviceCount("/cpu", NULL), GS_ERR_ARG_NULL);
}

/* The type helpers: sizes and names of both data types and memory types, and of values outside
 * the enumerations (0 and "unknown", never a crash). */
static void test_type_names(void) {
  CHECK(GsDataTypeSize(GS_DOUBLE) == 8 && GsDataTypeSize(GS_FLOAT) == 4,
        "data type sizes %zu and %zu", GsDataTypeSize(GS_DOUBLE), GsDataTypeSize(GS_FLOAT));
  CHECK(GsDataTypeSize((GsDataType)7) == 0 && GsDataTypeSize((GsDataType)-1) == 0,
        "an unknown data type has a size");
  CHECK(!strcmp(GsDataTypeName(GS_DOUBLE), "double") &&
            !strcmp(GsDataTypeName(GS_FLOAT), "float") &&
            !strcmp(GsDataTypeName((GsDataType)7), "unknown"),
        "data type names %s, %s, %s", GsDataTypeName(GS_DOUBLE), GsDataTypeName(GS_FLOAT),
        GsDataTypeName((GsDataType)7));
  CHECK(!strcmp(GsMemTypeName(GS_MEM_HOST), "host") &&
            !strcmp(GsMemTypeName(GS_MEM_DEVICE), "device") &&
            !strcmp(GsMemTypeName((GsMemType)9), "unknown"),
        "memory type names %s, %s, %s", GsMemTypeName(GS_MEM_HOST), GsMemTypeName(GS_MEM_DEVICE),
        GsMemTypeName((GsMemType)9));
}

int main(int argc, char **argv) {
  hs_begin("test_context", "/cpu", argc, argv);
  test_type_names();
  test_cpu();
  test_default_and_help();
  test_bad_resources();
  test_env_backend();
  test_destroy();
  test_version_counts();
  return hs_finish();
}
