/* gpusolve: solvers for the systems PDE simulations produce, on NVIDIA GPUs and CPUs.
 * The one header users include. */
#ifndef GPUSOLVE_H
#define GPUSOLVE_H

#include "gpusolve/types.h"
#include "gpusolve/version.h"
#include "gpusolve/error.h"
#include "gpusolve/sys.h"
#include "gpusolve/vec.h"
#include "gpusolve/banded.h"
#include "gpusolve/mat.h"
#include "gpusolve/ksp.h"
#include "gpusolve/stencil.h"

#endif
