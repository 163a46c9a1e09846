/*
 * The inputs' checksums, written into a calibration so that it names
 * exactly the measurements it was fitted to: SHA-256 from OpenSSL's
 * libcrypto (EVP), as sha256sum prints it.
 */
#include <openssl/evp.h>
#include <stdio.h>

#include "calib/calib.h"

int bn_calib_sha256(const void *data, size_t len, char out[65], struct bn_error *err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
        return bn_fail(err, BN_EINTERNAL, "sha256 failed (libcrypto)");
    for (unsigned i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return BN_OK;
}
