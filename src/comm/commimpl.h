/* Private error wrappers for MPI and NCCL, used by the distributed objects (src/comm). Each keeps
 * the vendor's own text for the status in the gpusolve message. */
#ifndef GPUSOLVE_COMMIMPL_H
#define GPUSOLVE_COMMIMPL_H

#include "../gsimpl.h"

#ifdef GS_HAVE_MPI
#include <mpi.h>
/* Return GS_ERR_MPI when an MPI call fails (the communicator must use MPI_ERRORS_RETURN). */
#define GsCallMPI(ctx, expr)                                                                       \
  do {                                                                                             \
    const int gs_merr_ = (expr);                                                                   \
    if (gs_merr_ != MPI_SUCCESS) {                                                                 \
      char gs_mmsg_[MPI_MAX_ERROR_STRING];                                                         \
      int gs_mlen_ = 0;                                                                            \
      if (MPI_Error_string(gs_merr_, gs_mmsg_, &gs_mlen_) != MPI_SUCCESS) gs_mlen_ = 0;            \
      gs_mmsg_[gs_mlen_] = 0;                                                                      \
      return GsErrorRaise((ctx), GS_ERR_MPI, __FILE__, __LINE__, __func__,                         \
                          "MPI error %d (%s) from %s", gs_merr_, gs_mmsg_, #expr);                 \
    }                                                                                              \
  } while (0)
#endif

#ifdef GS_HAVE_NCCL
#include <nccl.h>
/* Return GS_ERR_NCCL when an NCCL call fails, with ncclGetErrorString and the last NCCL message. */
#define GsCallNccl(ctx, comm, expr)                                                                \
  do {                                                                                             \
    const ncclResult_t gs_nerr_ = (expr);                                                          \
    if (gs_nerr_ != ncclSuccess && gs_nerr_ != ncclInProgress)                                     \
      return GsErrorRaise((ctx), GS_ERR_NCCL, __FILE__, __LINE__, __func__, "%s (%s) from %s",     \
                          ncclGetErrorString(gs_nerr_), ncclGetLastError(comm), #expr);            \
  } while (0)
#endif

#endif
