/* Contexts on a device back end (argv[1], e.g. /gpu/cuda): resource naming, memory space, device
 * description and copy bandwidth, synchronisation, device numbers past the last device, the "/gpu"
 * alias, and two contexts on one device working side by side. Skips (77) without a device. */
#include "harness.h"

static void test_one_context(GsContext ctx, const char *family) {
  const char *res = NULL;
  char want[80];
  snprintf(want, sizeof want, "%s:0", family);
  CHECK_OK(GsGetResource(ctx, &res));
  CHECK(res && !strcmp(res, want), "resource is '%s', expected %s", res ? res : "(null)", want);
  GsMemType mem = GS_MEM_HOST;
  CHECK_OK(GsGetPreferredMemType(ctx, &mem));
  CHECK(mem == GS_MEM_DEVICE, "preferred memory of %s is %s", want, GsMemTypeName(mem));

  GsDeviceInfo info;
  memset(&info, 0x5a, sizeof info);
  CHECK_OK(GsGetDeviceInfo(ctx, &info));
  CHECK(info.device_id == 0, "device id %d, expected 0", info.device_id);
  CHECK(info.name[0] && strlen(info.name) < sizeof info.name,
        "device name is empty or unterminated");
  CHECK(info.compute_major >= 3 && info.multiprocessors > 0 &&
            info.total_memory > ((size_t)1 << 28),
        "implausible device: cc %d.%d, %d SMs, %zu bytes", info.compute_major, info.compute_minor,
        info.multiprocessors, info.total_memory);
  printf("device: %s, cc %d.%d, %d SMs, %.1f GiB, L2 %zu bytes\n", info.name, info.compute_major,
         info.compute_minor, info.multiprocessors, (double)info.total_memory / (1 << 30),
         info.l2_cache);

  /* Device memory moves well over 100 GB/s on any GPU this library targets; a host-clock or
   * wrong-unit bug would show as far less (or far more than 100 TB/s). */
  double gbs = 0;
  CHECK_OK(GsMeasureCopyBandwidth(ctx, (size_t)64 << 20, 5, &gbs));
  CHECK(gbs > 100 && gbs < 1e5, "copy bandwidth %g GB/s is implausible", gbs);
  printf("copy bandwidth (64 MiB buffers): %.0f GB/s\n", gbs);
  CHECK_ERR(GsMeasureCopyBandwidth(ctx, 4, 5, &gbs), GS_ERR_ARG_OUTOFRANGE);
  CHECK_OK(GsSynchronize(ctx));
}

/* Two contexts on the same device keep their own work, errors and options apart. */
static void test_two_contexts(const char *resource) {
  GsContext a = NULL, b = NULL;
  if (CHECK_OK(GsInit(resource, &a)) || CHECK_OK(GsInit(resource, &b))) {
    GsDestroy(&a);
    return;
  }
  hs_watch(a);
  hs_watch(b);
  const GsInt n = 1000003;
  GsVec x = NULL, y = NULL;
  if (!CHECK_OK(GsVecCreate(a, n, GS_DOUBLE, &x)) && !CHECK_OK(GsVecCreate(b, n, GS_DOUBLE, &y))) {
    CHECK_OK(GsVecSet(x, 2.0));
    CHECK_OK(GsVecSet(y, 3.0));
    double nx = 0, ny = 0;
    CHECK_OK(GsVecNorm(x, GS_NORM_1, &nx));
    CHECK_OK(GsVecNorm(y, GS_NORM_1, &ny));
    CHECK(nx == 2.0 * n && ny == 3.0 * n, "norms %g and %g, expected %g and %g", nx, ny, 2.0 * n,
          3.0 * n);
    CHECK_ERR(GsVecAXPY(y, 1.0, x), GS_ERR_ARG_INCOMP);
    CHECK_MSG(a, "different contexts");
    CHECK(GsGetErrorCode(b) == 0, "an error on context a showed on context b: %s",
          GsGetErrorMessage(b));
  }
  CHECK_OK(GsOptionsSetValue(a, "-only_in_a", "1"));
  int set = 1;
  CHECK_OK(GsOptionsHasName(b, "-only_in_a", &set));
  CHECK(!set, "an option set on context a is visible on context b");
  CHECK_OK(GsOptionsClearValue(b, "-only_in_a")); /* absent from b: does nothing there */
  CHECK_OK(GsOptionsHasName(a, "-only_in_a", &set));
  CHECK(set, "clearing an option on context b removed it from context a");
  CHECK_OK(GsOptionsClearValue(a, "-only_in_a"));
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  hs_unwatch(a);
  hs_unwatch(b);
  CHECK_OK(GsDestroy(&a));
  CHECK_OK(GsDestroy(&b));
}

int main(int argc, char **argv) {
  const char *resource = argc > 1 && argv[1][0] == '/' ? argv[1] : "/gpu/cuda";
  hs_begin("test_device", resource, argc, argv);
  GsContext ctx = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc) return rc; /* 77: skipped, with the reason printed */
  hs_watch(ctx);
  /* The family without a device number: "/gpu/cuda" from "/gpu/cuda" or "/gpu/cuda:0". */
  char fam[64];
  const char *colon = strchr(resource, ':');
  snprintf(fam, sizeof fam, "%.*s", colon ? (int)(colon - resource) : (int)strlen(resource),
           resource);
  test_one_context(ctx, fam);

  int count = 0;
  CHECK_OK(GsGetDeviceCount(fam, &count));
  CHECK(count >= 1, "%s reports %d devices while a context is open on one", fam, count);
  char past[80];
  snprintf(past, sizeof past, "%s:%d", fam, count);
  GsContext bad = NULL;
  CHECK_ERR(GsInit(past, &bad), GS_ERR_NO_DEVICE);
  CHECK(bad == NULL, "failed GsInit left a context behind");
  char cnt[32];
  snprintf(cnt, sizeof cnt, "%d", count);
  CHECK_MSG(NULL, cnt);

  GsContext alias = NULL;
  if (!CHECK_OK(GsInit("/gpu", &alias))) {
    const char *res = NULL;
    CHECK_OK(GsGetResource(alias, &res));
    CHECK(res && !strncmp(res, "/gpu/", 5), "'/gpu' opened '%s'", res ? res : "(null)");
    CHECK_OK(GsDestroy(&alias));
  }
  test_two_contexts(resource);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
