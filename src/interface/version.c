/* Version and build description. */
#include "../gsimpl.h"
#include "gsconfig.h"

int GsGetVersion(int *major, int *minor, int *patch) {
  if (major) *major = GS_VERSION_MAJOR;
  if (minor) *minor = GS_VERSION_MINOR;
  if (patch) *patch = GS_VERSION_PATCH;
  return 0;
}

const char *GsGetBuildInfo(void) {
  return GS_BUILD_INFO;
}

size_t GsDataTypeSize(GsDataType t) {
  switch (t) {
  case GS_DOUBLE:
    return sizeof(double);
  case GS_FLOAT:
    return sizeof(float);
  }
  return 0;
}

const char *GsDataTypeName(GsDataType t) {
  switch (t) {
  case GS_DOUBLE:
    return "double";
  case GS_FLOAT:
    return "float";
  }
  return "unknown";
}

const char *GsMemTypeName(GsMemType m) {
  switch (m) {
  case GS_MEM_HOST:
    return "host";
  case GS_MEM_DEVICE:
    return "device";
  }
  return "unknown";
}
