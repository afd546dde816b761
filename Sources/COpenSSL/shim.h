#ifndef DATACENTER_COPENSSL_SHIM_H
#define DATACENTER_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#endif
