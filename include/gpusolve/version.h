/* gpusolve version. CMake reads the three numbers below; keep them on their own lines. */
#ifndef GPUSOLVE_VERSION_H
#define GPUSOLVE_VERSION_H

#define GS_VERSION_MAJOR 0
#define GS_VERSION_MINOR 1
#define GS_VERSION_PATCH 0

/* Encodes a version as one comparable integer: GS_VERSION_GE(0, 1, 0). */
#define GS_VERSION_NUMBER(a, b, c) ((a)*10000 + (b)*100 + (c))
#define GS_VERSION GS_VERSION_NUMBER(GS_VERSION_MAJOR, GS_VERSION_MINOR, GS_VERSION_PATCH)
#define GS_VERSION_GE(a, b, c) (GS_VERSION >= GS_VERSION_NUMBER(a, b, c))

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the library that was linked (may differ from the header's); any pointer may be NULL.
 */
int GsGetVersion(int *major, int *minor, int *patch);
/* Static, human-readable description of how the library was built (back ends, OpenMP, MPI, ...). */
const char *GsGetBuildInfo(void);

#ifdef __cplusplus
}
#endif
#endif
