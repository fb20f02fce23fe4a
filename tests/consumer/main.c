/* A program outside the project that only sees the installed gpusolve. */
#include <stdio.h>

#include <gpusolve.h>

int main(void) {
  GsContext ctx = NULL;
  GsVec x = NULL;
  double nrm = 0;
  if (GsInit("/cpu", &ctx) || GsVecCreate(ctx, 4, GS_DOUBLE, &x) || GsVecSet(x, 2.0) ||
      GsVecNorm(x, GS_NORM_2, &nrm) || GsVecDestroy(&x) || GsDestroy(&ctx)) {
    fprintf(stderr, "consumer: %s\n", GsGetErrorMessage(ctx));
    return 1;
  }
  int major, minor, patch;
  GsGetVersion(&major, &minor, &patch);
  if (major != GS_VERSION_MAJOR || minor != GS_VERSION_MINOR || nrm != 4.0) {
    fprintf(stderr, "consumer: version %d.%d or norm %g is wrong\n", major, minor, nrm);
    return 1;
  }
  printf("consumer: gpusolve %d.%d.%d, ||x|| = %g\n", major, minor, patch, nrm);
  return 0;
}
