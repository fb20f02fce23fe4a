/* Basic types shared by every gpusolve module. */
#ifndef GPUSOLVE_TYPES_H
#define GPUSOLVE_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Element counts and indices: 64-bit everywhere, so vectors may hold up to 2^63-1 entries. */
typedef int64_t GsInt;
#define GS_INT_MAX INT64_MAX

/* Where an array lives. */
typedef enum { GS_MEM_HOST = 0, GS_MEM_DEVICE = 1 } GsMemType;

/* Element type of a vector. Reductions always accumulate in double. */
typedef enum { GS_DOUBLE = 0, GS_FLOAT = 1 } GsDataType;

typedef enum { GS_NORM_1 = 0, GS_NORM_2 = 1, GS_NORM_INF = 2 } GsNormType;

/* A library context: one back end (and device), its error state, options and event log. */
typedef struct GsContext_s *GsContext;
/* A vector of n entries with a host and (on GPU back ends) a device copy. */
typedef struct GsVec_s *GsVec;
/* A few doubles kept where the context computes (device memory on a GPU back end): see vec.h. */
typedef struct GsScalars_s *GsScalars;

#ifdef __cplusplus
extern "C" {
#endif

/* Size in bytes of one element of type t (0 for an unknown type). */
size_t GsDataTypeSize(GsDataType t);
/* "double", "float" or "unknown". */
const char *GsDataTypeName(GsDataType t);
/* "host", "device" or "unknown". */
const char *GsMemTypeName(GsMemType m);

#ifdef __cplusplus
}
#endif

#endif
