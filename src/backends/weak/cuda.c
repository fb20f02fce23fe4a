/* Registration stub for the CUDA back end when it is not compiled in: GsInit("/gpu/cuda") then
 * answers GS_ERR_BACKEND_NOT_COMPILED instead of failing to link. */
#include <string.h>

#include "../../gsimpl.h"

void GsBackendFillOps_Cuda(GsBackendOps *ops) {
  memset(ops, 0, sizeof *ops);
  ops->family = "/gpu/cuda";
  ops->compiled = 0;
  ops->mem = GS_MEM_DEVICE;
}
