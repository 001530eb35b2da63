#ifndef BMVAULT_CZIP_SHIM_H
#define BMVAULT_CZIP_SHIM_H

/* libzip: reading the members of a zip archive (an EPUB). */
#include <zip.h>

#endif
