/* The vendor wrappers (GsCallCuda, GsCallCublas, GsCallCusparse, and GsCallMPI / GsCallNccl when
 * built with MPI / NCCL) turn a failing vendor call into the gpusolve code and keep the vendor's
 * name for the status and the failing expression in the message. Each call below fails with or
 * without a GPU, so this runs everywhere the CUDA back end is built. */
#include "harness.h"

#include "backends/cuda/cudaimpl.h"
#if defined(GS_HAVE_MPI) || defined(GS_HAVE_NCCL)
#include "comm/commimpl.h"
#endif

static int bad_cuda(GsContext ctx) {
  GsCallCuda(ctx, cudaSetDevice(1 << 20));
  return 0;
}
static int bad_cublas(GsContext ctx) {
  GsCallCublas(ctx, cublasDestroy(NULL));
  return 0;
}
static int bad_cusparse(GsContext ctx) {
  GsCallCusparse(ctx, cusparseCreateMatDescr(NULL));
  return 0;
}
#ifdef GS_HAVE_MPI
static int bad_mpi(GsContext ctx) {
  double v = 1;
  GsCallMPI(ctx, MPI_Send(&v, 1, MPI_DOUBLE, 1 << 20, 0, MPI_COMM_WORLD));
  return 0;
}
#endif
#ifdef GS_HAVE_NCCL
static int bad_nccl(GsContext ctx) {
  ncclComm_t comm = NULL;
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  GsCallNccl(ctx, comm, ncclCommInitRank(&comm, 0, id, 5)); /* rank 5 of 0 ranks */
  return 0;
}
#endif

int main(int argc, char **argv) {
  hs_begin("test_vendor", "/cpu", argc, argv);
  GsContext ctx = NULL;
  if (CHECK_OK(GsInit("/cpu", &ctx))) return hs_finish();
  hs_watch(ctx);

  CHECK_ERR(bad_cuda(ctx), GS_ERR_CUDA);
  CHECK_MSG(ctx, "GS_ERR_CUDA");
  CHECK_MSG(ctx, "cudaError");
  CHECK_MSG(ctx, "cudaSetDevice(1 << 20)");
  CHECK_MSG(ctx, "at bad_cuda (tests/test_vendor.c:");

  CHECK_ERR(bad_cublas(ctx), GS_ERR_CUBLAS);
  CHECK_MSG(ctx, "CUBLAS_STATUS_");
  CHECK_MSG(ctx, "cublasDestroy(NULL)");

  CHECK_ERR(bad_cusparse(ctx), GS_ERR_CUSPARSE);
  CHECK_MSG(ctx, "CUSPARSE_STATUS_");
  CHECK_MSG(ctx, "cusparseCreateMatDescr(NULL)");

#ifdef GS_HAVE_MPI
  int init = 0;
  MPI_Initialized(&init);
  if (init || MPI_Init(NULL, NULL) == MPI_SUCCESS) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_ERR(bad_mpi(ctx), GS_ERR_MPI);
    CHECK_MSG(ctx, "MPI_Send(");
    CHECK_MSG(ctx, "GS_ERR_MPI");
    MPI_Finalize();
  } else {
    printf("note: MPI_Init failed; GsCallMPI not exercised\n");
  }
#endif
#ifdef GS_HAVE_NCCL
  CHECK_ERR(bad_nccl(ctx), GS_ERR_NCCL);
  CHECK_MSG(ctx, "ncclCommInitRank(");
#endif
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
