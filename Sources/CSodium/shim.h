#ifndef BMV_CSODIUM_SHIM_H
#define BMV_CSODIUM_SHIM_H
#include <sodium.h>
#endif
