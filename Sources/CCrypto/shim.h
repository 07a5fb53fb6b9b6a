#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for the SHA-2 digests subresource integrity needs (SHA-256/384/512):
// only the one-shot functions of <openssl/sha.h>.
#include <openssl/sha.h>
#endif
