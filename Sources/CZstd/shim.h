#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H
// The advanced API (ZSTD_CCtx_refPrefix, ZSTD_c_enableLongDistanceMatching, ZSTD_d_windowLogMax)
// is stable since zstd 1.4.0; Debian 12 ships 1.5.4.
#include <zstd.h>
#include <zstd_errors.h>
#endif
