#ifndef FLEET_COPENSSL_SHIM_H
#define FLEET_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/aes.h>
#endif
