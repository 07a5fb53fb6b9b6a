#ifndef CPSL_SHIM_H
#define CPSL_SHIM_H
// libpsl: the Public Suffix List (psl_latest, psl_is_public_suffix, psl_registrable_domain).
// Debian 12 ships 0.21.2; WebKitGTK's libsoup links the same library.
#include <libpsl.h>
#endif
