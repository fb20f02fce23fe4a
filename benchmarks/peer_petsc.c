/* gpusolve-petsc-peer: the same Krylov solve by PETSc, for iteration counts and CPU time per
 * iteration beside `gpusolve solve -gs_backend /cpu`. Built only where PETSc is found
 * (pkg-config PETSc). The matrix is read with gpusolve's Matrix Market reader (or generated) and
 * handed to PETSc as an AIJ matrix, so both solve exactly the same system.
 *
 *   gpusolve-petsc-peer (-A A.mtx | -laplacian NX,NY[,NZ] [-stencil S]) [PETSc options]
 *
 * b = A * ones, x0 = 0, unpreconditioned norm; the PETSc options (-ksp_type, -pc_type, -ksp_rtol,
 * -ksp_pc_side, -log_view, ...) are PETSc's own; -b_perturb_seed S multiplies each entry of b by
 * 1 + u eps (u uniform in [-1, 1) from S, as test_ksp does). Prints one line: iterations, reason,
 * seconds, milliseconds per iteration, true relative residual. */
#include <petscksp.h>
#include <stdio.h>
#include <string.h>

#include <gpusolve.h>

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  char apath[PETSC_MAX_PATH_LEN] = "", lap[128] = "";
  PetscBool has_a = PETSC_FALSE, has_l = PETSC_FALSE;
  PetscInt stencil = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-A", apath, sizeof apath, &has_a));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-laplacian", lap, sizeof lap, &has_l));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-stencil", &stencil, NULL));
  if (has_a == has_l) {
    fprintf(stderr,
            "gpusolve-petsc-peer: give exactly one of -A FILE.mtx and -laplacian NX,NY[,NZ]\n");
    PetscCall(PetscFinalize());
    return 2;
  }
  GsContext ctx = NULL;
  GsMat G = NULL;
  int ierr = GsInit("/cpu", &ctx);
  if (!ierr && has_a) ierr = GsMatLoadMatrixMarket(ctx, apath, &G);
  if (!ierr && has_l) {
    long long d[3] = {1, 1, 1};
    int nd = sscanf(lap, "%lld,%lld,%lld", &d[0], &d[1], &d[2]);
    if (!stencil) stencil = nd == 2 ? 5 : 7;
    ierr = GsMatCreateLaplacian(ctx, d[0], d[1], nd == 3 ? d[2] : 1, (int)stencil, &G);
  }
  if (ierr) {
    fprintf(stderr, "gpusolve-petsc-peer: %s\n", GsGetErrorMessage(ctx));
    PetscCall(PetscFinalize());
    return 1;
  }
  GsInt m, n, nnz;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(G, &m, &n, &nnz);
  GsMatGetCSR(G, &rp, &col, &val);
  PetscInt *prp, *pcol;
  PetscScalar *pval;
  PetscCall(PetscMalloc3(m + 1, &prp, nnz, &pcol, nnz, &pval));
  for (GsInt i = 0; i <= m; i++)
    prp[i] = (PetscInt)rp[i];
  for (GsInt k = 0; k < nnz; k++) {
    pcol[k] = col[k];
    pval[k] = val[k];
  }
  Mat A;
  PetscCall(
      MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, (PetscInt)m, (PetscInt)n, prp, pcol, pval, &A));
  Vec b, x, one, r;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &one));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(one, 1.0));
  PetscCall(MatMult(A, one, b));
  /* -b_perturb_seed S: each entry of b times (1 + u eps), u uniform in [-1, 1) from seed S, to
   * see how far rounding-level changes move the iteration count. */
  PetscInt pseed = 0;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-b_perturb_seed", &pseed, NULL));
  if (pseed) {
    PetscScalar *bb;
    unsigned long long st = 0x9E3779B97F4A7C15ULL * (unsigned long long)pseed;
    PetscCall(VecGetArray(b, &bb));
    for (GsInt i = 0; i < m; i++) {
      st = st * 6364136223846793005ULL + 1442695040888963407ULL;
      const double u = (double)(st >> 11) / 9007199254740992.0 * 2 - 1;
      bb[i] *= 1 + u * 2.220446049250313e-16;
    }
    PetscCall(VecRestoreArray(b, &bb));
  }
  PetscCall(VecSet(x, 0.0));
  KSP ksp;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscLogDouble t0, t1;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  PetscInt its;
  KSPConvergedReason reason;
  PetscReal rn, bn;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  KSPType type;
  PetscCall(KSPGetType(ksp, &type));
  printf("petsc %s: %s after %d iterations, %.3f s (%.4f ms per iteration); true relative residual "
         "%.3e\n",
         type, KSPConvergedReasons[reason], (int)its, t1 - t0, its ? 1e3 * (t1 - t0) / its : 0.0,
         (double)(rn / bn));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&one));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree3(prp, pcol, pval));
  GsMatDestroy(&G);
  GsDestroy(&ctx);
  PetscCall(PetscFinalize());
  return 0;
}
