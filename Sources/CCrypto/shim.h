#ifndef BMV_CCRYPTO_SHIM_H
#define BMV_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto, for SHA-256 only (its EVP digest API): checksums of data that is not
   secret, at the speed of the CPU's SHA extensions. Nothing is encrypted with it. */
#include <openssl/evp.h>
#endif
